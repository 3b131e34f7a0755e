// Keeps onnxruntime off Intel AMX: a seccomp filter makes arch_prctl(ARCH_REQ_XCOMP_PERM) fail with EPERM, so the
// permission request onnxruntime's MLAS makes when it first initialises (MlasInitAMX) is refused and it picks its
// AVX512-VNNI int8 kernels instead. On the Sapphire Rapids VMs measured (docs/tuning.md) its AMX
// kernels took ~2x as long for the decoder's one-row products. Linux x86-64 only; loaded by src/engine/amx.ts.
#include <node_api.h>
#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_GET_XCOMP_PERM 0x1022
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

/* 1 when this process may use AMX tile data (the permission was granted), 0 when not, -errno on failure. */
static long tile_permitted(void) {
  unsigned long mask = 0;
  if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &mask) != 0) return -errno;
  return (mask >> XFEATURE_XTILEDATA) & 1;
}

/* 0 once the filter is in place for every thread of the process (and every thread made later), else an errno. */
static int deny_tile_permission(void) {
  static int installed = 0; /* one filter per process, whichever worker thread asks first */
  if (installed) return 0;
  struct sock_filter code[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_arch_prctl, 0, 3),
    /* arch_prctl's option is an int: the low 32 bits of the first argument (little-endian). */
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_REQ_XCOMP_PERM, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { (unsigned short)(sizeof(code) / sizeof(code[0])), code };
  /* Unprivileged processes may install a filter only after giving up gaining privileges through execve. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
  if (rc < 0) return errno;
  if (rc > 0) return ESRCH; /* a thread could not take the filter */
  installed = 1;
  return 0;
}

/* The request onnxruntime's MLAS makes (for the tests): 0 when granted, else its errno. */
static int request_tile_permission(void) {
  return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 ? 0 : errno;
}

static napi_value Request(napi_env env, napi_callback_info info) {
  napi_value out;
  napi_create_int32(env, request_tile_permission(), &out);
  return out;
}

static napi_value Deny(napi_env env, napi_callback_info info) {
  napi_value out;
  napi_create_int32(env, deny_tile_permission(), &out);
  return out;
}

static napi_value Permitted(napi_env env, napi_callback_info info) {
  napi_value out;
  napi_create_int64(env, (int64_t)tile_permitted(), &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "denyTilePermission", NAPI_AUTO_LENGTH, Deny, NULL, &fn);
  napi_set_named_property(env, exports, "denyTilePermission", fn);
  napi_create_function(env, "tilePermitted", NAPI_AUTO_LENGTH, Permitted, NULL, &fn);
  napi_set_named_property(env, exports, "tilePermitted", fn);
  napi_create_function(env, "requestTilePermission", NAPI_AUTO_LENGTH, Request, NULL, &fn);
  napi_set_named_property(env, exports, "requestTilePermission", fn);
  return exports;
}
