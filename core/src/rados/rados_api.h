// librados, loaded on first use of a rados:// location instead of at every process start:
// linked in, Ceph's libraries would add about 11 MiB of memory to every process, RADOS or
// not. The calls are librados' C API (rados/librados.h), made through pointers.
#pragma once

#include <string>

#include <rados/librados.h>

namespace deltameta {

#define DELTAMETA_RADOS_CALLS(X)         \
  X(rados_aio_cancel)                    \
  X(rados_aio_create_completion2)        \
  X(rados_aio_get_return_value)          \
  X(rados_aio_is_complete)               \
  X(rados_aio_read)                      \
  X(rados_aio_read_op_operate)           \
  X(rados_aio_release)                   \
  X(rados_aio_remove)                    \
  X(rados_aio_setxattr)                  \
  X(rados_aio_stat)                      \
  X(rados_aio_unlock)                    \
  X(rados_aio_wait_for_complete)         \
  X(rados_aio_write)                     \
  X(rados_aio_write_op_operate)          \
  X(rados_conf_parse_env)                \
  X(rados_conf_read_file)                \
  X(rados_conf_set)                      \
  X(rados_connect)                       \
  X(rados_create)                        \
  X(rados_create_read_op)                \
  X(rados_create_write_op)               \
  X(rados_getxattrs_end)                 \
  X(rados_getxattrs_next)                \
  X(rados_ioctx_create)                  \
  X(rados_lock_exclusive)                \
  X(rados_omap_get_end)                  \
  X(rados_omap_get_next)                 \
  X(rados_omap_get_next2)                \
  X(rados_read_op_getxattrs)             \
  X(rados_read_op_omap_get_keys2)        \
  X(rados_read_op_omap_get_vals_by_keys) \
  X(rados_release_read_op)               \
  X(rados_release_write_op)              \
  X(rados_shutdown)                      \
  X(rados_write_op_assert_exists)        \
  X(rados_write_op_create)               \
  X(rados_write_op_omap_rm_keys)         \
  X(rados_write_op_omap_set)             \
  X(rados_write_op_setxattr)

struct RadosApi {
#define DELTAMETA_RADOS_POINTER(name) decltype(&::name) name;
  DELTAMETA_RADOS_CALLS(DELTAMETA_RADOS_POINTER)
#undef DELTAMETA_RADOS_POINTER
};

// Loads librados once per process. nullptr with *error naming the library and the fix.
const RadosApi* LoadLibrados(std::string* error);
// The loaded calls; only after LoadLibrados() succeeded (every RADOS object is made after).
const RadosApi& Librados();

}  // namespace deltameta
