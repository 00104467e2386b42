// The MD-Workbench tool's command line (deltameta_mdworkbench): MD-Workbench's options
// where they apply, with their short forms (-D=4 or -D 4, -1/-2/-3 for one phase,
// --process-reports without a value), and the deltameta flags for the interfaces
// (--interface, --root, --info_svr_uri, --json, ...). NormalizeMdwArgs rewrites the
// MD-Workbench forms into the --name=value form FlagSet parses; CheckMdwFlags refuses
// combinations the interfaces cannot run, with a one-line reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "deltameta/flags.h"
#include "mdworkbench/objects.h"

namespace deltameta {

struct MdwFlags {
  std::string interface = "posix";  // posix, indexfs, deltafs or cephfs
  std::string root;                 // posix, cephfs: the tree's root; deltafs precreate: the store root
  std::string cephfs_name;          // cephfs: the file system ("" for the cluster's default)
  std::string info_svr_uri = "tcp://127.0.0.1:10086";
  std::string rpc_transport = "auto";
  int64_t rpc_timeout = 30;
  bool cpu_affinity = true;
  // MD-Workbench's parameters, with its defaults.
  int64_t dset_count = 10;           // -D
  int64_t precreate_per_set = 3000;  // -P
  int64_t obj_per_proc = 1000;       // -I
  int64_t object_size = 3901;        // -S
  int64_t iterations = 3;            // -R
  int64_t offset = 1;                // -O
  bool run_precreate = false;        // -1
  bool run_benchmark = false;        // -2
  bool run_cleanup = false;          // -3
  int64_t stonewall_timer = 0;       // -w: seconds per benchmark iteration (0: none)
  bool stonewall_wear_out = false;   // -W: every rank then runs as many positions as the most any ran
  bool process_reports = false;
  std::string latency_file_prefix;  // -L
  std::string output = "both";      // deltameta, mdworkbench or both: which result lines to print
  std::string json;

  // The phases to run: those given with -1/-2/-3, or all three if none is.
  bool precreate() const { return run_precreate || !AnyPhaseGiven(); }
  bool benchmark() const { return run_benchmark || !AnyPhaseGiven(); }
  bool cleanup() const { return run_cleanup || !AnyPhaseGiven(); }
  bool AnyPhaseGiven() const { return run_precreate || run_benchmark || run_cleanup; }
  bool ours() const { return output != "mdworkbench"; }
  bool mdworkbench_lines() const { return output != "deltameta"; }
  ObjectSpace Space(uint32_t ranks) const;
};

void RegisterMdwFlags(FlagSet* set, MdwFlags* flags);

// argv in the --name=value form: -D=4 and -D 4 become --dset-count=4 (likewise -P, -I,
// -S, -R, -O, -L, -w and -i), -1/-2/-3 --run-precreate=1 and so on, -W
// --stonewall-wear-out=1, a boolean long option
// without a value gets =1, and MD-Workbench's long names data-sets, root-dir and latency
// become dset-count, root and latency-file-prefix. argv[0] stays first; anything else
// is passed as it is, for FlagSet to judge.
std::vector<std::string> NormalizeMdwArgs(int argc, char** argv);

// What is wrong with the flags taken together, or "" if nothing is.
std::string CheckMdwFlags(const MdwFlags& flags);

}  // namespace deltameta
