/*
 * Vinci runtime: load a compiled .om model and run it.
 *
 * Shaped like AscendCL's model API. A model is loaded once (from a file,
 * mapped read-only, or from a caller-owned buffer) and validated completely
 * at load: a corrupt or hostile file gives an error code, never a crash. A
 * loaded model is immutable and may be shared by any number of threads;
 * each thread runs its own context.
 *
 * Executor: kernels run on the built-in Da Vinci AI Core simulator. Its
 * cycle figures model an Ascend 310P from published numbers; they are not
 * measurements of hardware.
 *
 * Errors: every function that can fail returns a vinci_status and leaves
 * a one-line message for vinci_last_error_message() (per thread). No C++
 * exception leaves this API. See docs/runtime.md.
 */
#ifndef VINCI_RUNTIME_H
#define VINCI_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(VINCI_RUNTIME_BUILDING)
#define VINCI_API __attribute__((visibility("default")))
#else
#define VINCI_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define VINCI_RUNTIME_VERSION_MAJOR 0
#define VINCI_RUNTIME_VERSION_MINOR 1
#define VINCI_MAX_RANK 8

typedef enum vinci_status {
  VINCI_OK = 0,
  VINCI_ERROR_INVALID_ARGUMENT = 1,   /* a null pointer, bad index, unaligned buffer */
  VINCI_ERROR_IO = 2,                 /* the file cannot be opened, mapped or written */
  VINCI_ERROR_TRUNCATED = 3,          /* the file ends early */
  VINCI_ERROR_BAD_MAGIC = 4,          /* not a .om file */
  VINCI_ERROR_UNSUPPORTED_VERSION = 5,/* unknown format major version or flag */
  VINCI_ERROR_CHECKSUM = 6,           /* header or section checksum mismatch */
  VINCI_ERROR_SECTION_BOUNDS = 7,     /* a section or a range in one is out of bounds */
  VINCI_ERROR_SECTION_OVERLAP = 8,    /* sections overlap */
  VINCI_ERROR_MISALIGNED = 9,         /* a section or weight is misaligned */
  VINCI_ERROR_BAD_SECTION_TABLE = 10, /* missing, duplicate or malformed section entry */
  VINCI_ERROR_BAD_METADATA = 11,      /* metadata fails its verifier */
  VINCI_ERROR_INVALID_MODEL = 12,     /* metadata is inconsistent (index, offset, size) */
  VINCI_ERROR_UNKNOWN_SOC = 13,       /* the model targets a SoC this runtime does not know */
  VINCI_ERROR_BAD_PROGRAM = 14,       /* a kernel program fails validation */
  VINCI_ERROR_NOT_FOUND = 15,         /* no input/output of that name */
  VINCI_ERROR_SIZE_MISMATCH = 16,     /* a buffer has the wrong size */
  VINCI_ERROR_OUT_OF_MEMORY = 17,     /* an allocation failed */
  VINCI_ERROR_EXECUTION = 18,         /* a kernel failed while running */
  VINCI_ERROR_HAZARD = 19,            /* an unsynchronised pipe hazard (fatal mode) */
  VINCI_ERROR_INTERNAL = 20           /* a bug in the runtime; please report it */
} vinci_status;

/* Element types; the values are the .om schema's (vinci.om.DType). */
typedef enum vinci_dtype {
  VINCI_DTYPE_UNKNOWN = 0,
  VINCI_DTYPE_F32 = 1,
  VINCI_DTYPE_F16 = 2,
  VINCI_DTYPE_BF16 = 3,
  VINCI_DTYPE_I8 = 4,
  VINCI_DTYPE_U8 = 5,
  VINCI_DTYPE_I16 = 6,
  VINCI_DTYPE_U16 = 7,
  VINCI_DTYPE_I32 = 8,
  VINCI_DTYPE_U32 = 9,
  VINCI_DTYPE_I64 = 10,
  VINCI_DTYPE_U64 = 11,
  VINCI_DTYPE_BOOL = 12
} vinci_dtype;

/* Storage layouts; the values are the .om schema's (vinci.om.Format). */
typedef enum vinci_format {
  VINCI_FORMAT_ND = 0,
  VINCI_FORMAT_NCHW = 1,
  VINCI_FORMAT_NC1HWC0 = 2,
  VINCI_FORMAT_FRACTAL_NZ = 3,
  VINCI_FORMAT_FRACTAL_Z = 4
} vinci_format;

/* The pipes of an AI Core, in profile arrays. */
typedef enum vinci_pipe {
  VINCI_PIPE_S = 0,
  VINCI_PIPE_V = 1,
  VINCI_PIPE_M = 2, /* Cube */
  VINCI_PIPE_MTE1 = 3,
  VINCI_PIPE_MTE2 = 4,
  VINCI_PIPE_MTE3 = 5,
  VINCI_PIPE_COUNT = 6
} vinci_pipe;

/* How a model's gears vary its inputs, as ATC's options name them
 * (docs/runtime.md, "Gears"); the values are the .om schema's (vinci.om.GearKind). */
typedef enum vinci_gear_kind {
  VINCI_GEAR_NONE = 0,       /* static shapes */
  VINCI_GEAR_BATCH_SIZE = 1, /* --dynamic_batch_size: one value, the batch */
  VINCI_GEAR_IMAGE_SIZE = 2, /* --dynamic_image_size: two values, height and width */
  VINCI_GEAR_DIMS = 3        /* --dynamic_dims: one value per dynamic input dim */
} vinci_gear_kind;

#define VINCI_MAX_GEAR_VALUES 64

typedef struct vinci_model vinci_model;
typedef struct vinci_context vinci_context;

/* An input or output. `name` is owned by the model. In a model with gears,
 * the model's descriptors hold -1 in the dims that gears set and the
 * largest gear's size; the gear getters give one gear's dims and size. */
typedef struct vinci_tensor_desc {
  const char* name;
  vinci_dtype dtype;
  vinci_format format;
  uint32_t rank;
  int64_t dims[VINCI_MAX_RANK];
  uint64_t size; /* bytes the caller's buffer must hold */
} vinci_tensor_desc;

/* A shape, for matching inputs to a gear. */
typedef struct vinci_shape {
  uint32_t rank;
  int64_t dims[VINCI_MAX_RANK];
} vinci_shape;

/* One gear: the values that select it, as its compile option gave them. */
typedef struct vinci_gear {
  uint32_t num_values;
  int64_t values[VINCI_MAX_GEAR_VALUES];
} vinci_gear;

/* What a model is. Strings are owned by the model. */
typedef struct vinci_model_info {
  const char* name;
  const char* soc;
  const char* precision; /* force_fp16, allow_mix_precision, must_keep_origin_dtype */
  const char* producer;
  const char* producer_version;
  uint32_t format_version_major;
  uint32_t format_version_minor;
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t num_weights;
  uint32_t num_kernels;
  uint32_t num_tasks;
  uint64_t work_size;   /* arena bytes a context needs */
  uint64_t weight_size; /* bytes of the weights section (used in place) */
  double clock_hz;      /* the simulated SoC's clock */
} vinci_model_info;

/* One tensor a task wrote, as a task observer sees it: its descriptor
 * (named "node:index", the source node's output it is) and its bytes, in
 * the work memory or the caller's output buffer, valid during the call. */
typedef struct vinci_task_output {
  vinci_tensor_desc desc;
  const void* data;
} vinci_task_output;

/* Called after each task of vinci_context_run (vinci-run --dump): the
 * task's index, its kernel's name, and the tensors it wrote (none for a
 * model written before the .om held per-task outputs). It must not call
 * back into the context. */
typedef void (*vinci_task_observer)(void* user, uint32_t task, const char* kernel,
                                    const vinci_task_output* outputs, uint32_t num_outputs);

typedef struct vinci_context_options {
  /* Caller-owned work memory (the arena): at least `work_size` bytes from
   * vinci_model_query_size, 64-byte aligned, alive and unused by anyone else
   * until vinci_context_destroy. NULL: the context allocates its own. */
  void* work_memory;
  uint64_t work_memory_size;
  /* Host threads for the simulated cores; 0 = hardware concurrency.
   * Results do not depend on this value. */
  uint32_t threads;
  /* Nonzero: an unsynchronised pipe hazard fails the run with
   * VINCI_ERROR_HAZARD. Zero: hazards are counted in the profile. */
  int hazards_fatal;
  /* Non-NULL: after each run, write a Chrome-trace JSON timeline here. */
  const char* trace_path;
  /* NULL or "": the SoC's timing table as it is. Otherwise changes to it for
   * what-if runs, "name=value,name=optimistic,name=pessimistic,...", with the
   * table's entry names (docs/isa.md); the profile's figures then come from
   * the changed table. A bad item fails vinci_context_create with
   * VINCI_ERROR_INVALID_ARGUMENT. Results (outputs) never depend on it. */
  const char* timing_overrides;
  /* Nonzero: the simulator takes every instruction's reference path (plain
   * scalar code) instead of its fast one. Slower; outputs and profiles are
   * identical by design (the equivalence tests compare them). */
  int reference_paths;
  /* Non-NULL: called after each task of every run, with `task_observer_user`. */
  vinci_task_observer task_observer;
  void* task_observer_user;
} vinci_context_options;

typedef struct vinci_const_buffer {
  const void* data;
  uint64_t size;
} vinci_const_buffer;

typedef struct vinci_buffer {
  void* data;
  uint64_t size;
} vinci_buffer;

/* The last run, in the simulator's timing model. Each latency comes with its
 * pair and its error bars (docs/isa.md, "Error bars"): `cycles` is the timing
 * table's nominal reading without an L2, `cycles_ideal_l2` the same with an
 * ideal L2, and `cycles_low` / `cycles_high` take every timing cost at its
 * optimistic end (with the ideal L2) / its pessimistic end (without). */
typedef struct vinci_profile {
  uint64_t cycles;            /* sum over tasks (tasks run one after another) */
  double simulated_us;        /* cycles at clock_hz */
  double clock_hz;
  double host_seconds;        /* wall time of vinci_context_run on this host */
  uint64_t pipe_busy_cycles[VINCI_PIPE_COUNT]; /* summed over tasks and cores */
  uint64_t gm_bytes_read;
  uint64_t gm_bytes_written;
  uint64_t instructions;      /* dynamic, over all blocks */
  uint64_t cube_fractal_ops;
  uint32_t num_tasks;
  uint32_t hazard_count;      /* hazards found (non-fatal mode) */
  uint64_t cycles_ideal_l2;
  uint64_t cycles_low;
  uint64_t cycles_high;
  double simulated_us_ideal_l2;
  double simulated_us_low;
  double simulated_us_high;
} vinci_profile;

typedef struct vinci_task_profile {
  uint32_t kernel_index;
  const char* kernel_name;    /* owned by the model */
  uint32_t block_dim;
  uint32_t cores_used;
  uint64_t cycles;
  uint64_t pipe_busy_cycles[VINCI_PIPE_COUNT];
  uint64_t gm_bytes_read;
  uint64_t gm_bytes_written;
  uint64_t instructions;
  uint64_t cycles_ideal_l2;   /* as in vinci_profile */
  uint64_t cycles_low;
  uint64_t cycles_high;
} vinci_task_profile;

/* ---- errors ---------------------------------------------------------- */

/* The message of the last failed call on this thread ("" if none). Valid
 * until the next failing call on the same thread. */
VINCI_API const char* vinci_last_error_message(void);
/* A short fixed name for a status, e.g. "checksum mismatch". */
VINCI_API const char* vinci_status_name(vinci_status status);
VINCI_API const char* vinci_dtype_name(vinci_dtype dtype);
VINCI_API const char* vinci_format_name(vinci_format format);
/* e.g. "0.1 (om format 1.0)" */
VINCI_API const char* vinci_runtime_version(void);

/* ---- models ---------------------------------------------------------- */

/* Maps `path` read-only and validates it, kernels included. */
VINCI_API vinci_status vinci_model_load_from_file(const char* path, vinci_model** model);
/* Validates `size` bytes at `data` (64-byte aligned) and uses them in place:
 * the caller keeps them alive and unchanged until vinci_model_release and
 * the destruction of every context created from the model. */
VINCI_API vinci_status vinci_model_load_from_memory(const void* data, size_t size,
                                                    vinci_model** model);
/* Releases the caller's reference; contexts keep the model alive. NULL is ignored. */
VINCI_API void vinci_model_release(vinci_model* model);

VINCI_API vinci_status vinci_model_query_size(const vinci_model* model, uint64_t* work_size,
                                              uint64_t* weight_size);
VINCI_API vinci_status vinci_model_get_info(const vinci_model* model, vinci_model_info* info);
/* 0 for a NULL model. */
VINCI_API uint32_t vinci_model_num_inputs(const vinci_model* model);
VINCI_API uint32_t vinci_model_num_outputs(const vinci_model* model);
VINCI_API vinci_status vinci_model_get_input_desc(const vinci_model* model, uint32_t index,
                                                  vinci_tensor_desc* desc);
VINCI_API vinci_status vinci_model_get_output_desc(const vinci_model* model, uint32_t index,
                                                   vinci_tensor_desc* desc);
VINCI_API vinci_status vinci_model_find_input(const vinci_model* model, const char* name,
                                              uint32_t* index);
VINCI_API vinci_status vinci_model_find_output(const vinci_model* model, const char* name,
                                               uint32_t* index);
/* Static instruction count of kernel `index` (for tools). */
VINCI_API vinci_status vinci_model_kernel_instruction_count(const vinci_model* model,
                                                            uint32_t index, uint64_t* count);

/* ---- contexts -------------------------------------------------------- */

/* Defaults: own work memory, threads 0, hazards not fatal, no trace. */
VINCI_API void vinci_context_options_init(vinci_context_options* options);
/* `options` may be NULL for the defaults. */
VINCI_API vinci_status vinci_context_create(vinci_model* model,
                                            const vinci_context_options* options,
                                            vinci_context** context);
VINCI_API void vinci_context_destroy(vinci_context* context);

/* Runs the model once (at the context's gear, for a model with gears).
 * inputs[i].size must equal input i's size; outputs[i] must hold at least
 * output i's size (the gear's sizes, for a model with gears). On error the
 * outputs' contents are unspecified (a kernel may have written part of them). */
VINCI_API vinci_status vinci_context_run(vinci_context* context, const vinci_const_buffer* inputs,
                                         uint32_t num_inputs, const vinci_buffer* outputs,
                                         uint32_t num_outputs);
/* The profile of the last successful run. */
VINCI_API vinci_status vinci_context_get_profile(const vinci_context* context,
                                                 vinci_profile* profile);
VINCI_API vinci_status vinci_context_get_task_profile(const vinci_context* context,
                                                      uint32_t task, vinci_task_profile* profile);
/* Hazard `index` < profile.hazard_count of the last run, one line; NULL if out of range. */
VINCI_API const char* vinci_context_hazard_message(const vinci_context* context, uint32_t index);

/* ---- gears (dynamic shapes) --------------------------------------------
 * A model compiled with --dynamic_batch_size, --dynamic_image_size or
 * --dynamic_dims holds one static graph per gear over shared weights. Each
 * context runs one gear at a time: choose it before vinci_context_run (a
 * context starts with none) and pass that gear's input sizes; output
 * buffers of the model's (largest) sizes fit every gear. Contexts of one
 * model may run different gears at the same time. A value that is no gear
 * is VINCI_ERROR_INVALID_ARGUMENT, with a message that lists the gears. */

/* VINCI_GEAR_NONE for a static model. */
VINCI_API vinci_status vinci_model_get_gear_kind(const vinci_model* model,
                                                 vinci_gear_kind* out_kind);
/* The number of gears; 0 for a static model (aclmdlGetInputDynamicGearCount). */
VINCI_API vinci_status vinci_model_get_gear_count(const vinci_model* model, uint32_t* out_count);
/* Gear `gear`'s values (aclmdlGetInputDynamicDims, aclmdlGetDynamicBatch/HW). */
VINCI_API vinci_status vinci_model_get_gear(const vinci_model* model, uint32_t gear,
                                            vinci_gear* out_gear);
/* Input or output `index` at gear `gear`: its dims and size there. */
VINCI_API vinci_status vinci_model_get_gear_input_desc(const vinci_model* model, uint32_t gear,
                                                       uint32_t index, vinci_tensor_desc* out_desc);
VINCI_API vinci_status vinci_model_get_gear_output_desc(const vinci_model* model, uint32_t gear,
                                                        uint32_t index,
                                                        vinci_tensor_desc* out_desc);
/* The gear whose input shapes equal `input_shapes` (one per input, in
 * order); VINCI_ERROR_NOT_FOUND, with the gears in the message, if none.
 * A static model matches its own shapes as gear 0. */
VINCI_API vinci_status vinci_model_match_gear(const vinci_model* model,
                                              const vinci_shape* input_shapes,
                                              uint32_t num_inputs, uint32_t* out_gear);

/* Choose the gear of the next runs, by value as AscendCL does
 * (aclmdlSetDynamicBatchSize, aclmdlSetDynamicHWSize,
 * aclmdlSetInputDynamicDims) or by index. The kind must be the model's. */
VINCI_API vinci_status vinci_context_set_dynamic_batch_size(vinci_context* context,
                                                            uint64_t batch_size);
VINCI_API vinci_status vinci_context_set_dynamic_hw_size(vinci_context* context, uint64_t height,
                                                         uint64_t width);
VINCI_API vinci_status vinci_context_set_input_dynamic_dims(vinci_context* context,
                                                            const int64_t* dims, uint32_t count);
VINCI_API vinci_status vinci_context_set_gear(vinci_context* context, uint32_t gear);
/* The gear chosen on the context; VINCI_ERROR_INVALID_ARGUMENT if none yet. */
VINCI_API vinci_status vinci_context_get_gear(const vinci_context* context, uint32_t* out_gear);
/* Output `index` as the last successful run produced it: its gear's dims
 * and size (aclmdlGetCurOutputDims). Also for static models. */
VINCI_API vinci_status vinci_context_get_cur_output_desc(const vinci_context* context,
                                                         uint32_t index,
                                                         vinci_tensor_desc* out_desc);

#ifdef __cplusplus
}
#endif

#endif /* VINCI_RUNTIME_H */
