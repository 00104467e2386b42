// The job's secret: who may talk to a server. A server makes it when it starts, if it is
// missing; clients read it and present it in the first frame of every connection (a
// hello, wire.h), and the server serves nothing else on a connection until it has checked
// it. So another user on the same hosts, who cannot read the file, can neither read nor
// change a job's namespace.
//
// The file is $DELTAMETA_SECRET_FILE, else $HOME/.deltameta/secret (HOME from the password
// database if unset): exactly kSecretBytes random bytes, a regular file owned by this user
// with no permission for group or others. A file that breaks any of these is refused with
// one line saying how to fix it. It is made atomically: written under a temporary name
// (O_EXCL) in the same directory, then linked to its name without replacing anything, so
// servers that start at once end with one secret; its directory, if missing, is made 0700.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace deltameta {

constexpr size_t kSecretBytes = 32;
constexpr char kSecretFileEnv[] = "DELTAMETA_SECRET_FILE";

// The secret file's path; "" with *error if neither the variable nor a home is known.
std::string SecretFilePath(std::string* error);

// Reads the secret at `path` into *secret; false with a one-line *error naming the file
// if it is missing, unreadable or not a valid secret (size, owner, mode).
bool ReadSecret(const std::string& path, std::string* secret, std::string* error);

// The server's side: reads the secret at `path`, making it first if it does not exist.
// *created tells whether this call made it (may be null).
bool ReadOrCreateSecret(const std::string& path, std::string* secret, bool* created, std::string* error);

// Compares two secrets in time independent of where they differ.
bool SecretsEqual(std::string_view a, std::string_view b);

}  // namespace deltameta
