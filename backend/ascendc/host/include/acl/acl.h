/* acl/acl.h - Vinci's clean-room host implementation of the AscendCL subset
 * that an exported host program uses (docs/ascendc.md): initialisation,
 * device and stream, device memory, copies, and errors. Written from the
 * public AscendCL API reference, never from CANN's sources.
 *
 * "Device" memory is host memory here. aclrtMalloc rounds a size up to 32
 * bytes and adds 32, as AscendCL documents, and fills the allocation with a
 * poison pattern (device memory is not zeroed); the kernels' DataCopy calls
 * are checked against these allocations. Kernels launched on a stream run
 * at once (the blocks one after another); a kernel fault is reported by the
 * next aclrtSynchronizeStream of that stream.
 *
 * Threading: one host thread; the implementation keeps one device.
 */
#ifndef VINCI_ASCENDC_HOST_ACL_ACL_H
#define VINCI_ASCENDC_HOST_ACL_ACL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
typedef void *aclrtStream;

/* AscendCL's public error codes (the subset returned here). */
#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_RT_AICORE_EXCEPTION 507015

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2
} aclrtMemMallocPolicy;

aclError aclInit(const char *configPath);
aclError aclFinalize(void);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtDestroyStream(aclrtStream stream);
/* Waits for the stream's kernels; returns ACL_ERROR_RT_AICORE_EXCEPTION
 * (once) when one of them faulted. */
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind);
aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
/* The last error's one-line message on this thread ("" when none). */
const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* VINCI_ASCENDC_HOST_ACL_ACL_H */
