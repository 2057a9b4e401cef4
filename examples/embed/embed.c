/* vinci-embed: load a compiled .om, run it once on the simulator, print the
 * top-5 entries of the first output and the simulated time.
 *
 *   vinci-embed MODEL.om [INPUT.bin ...]
 *
 * Each INPUT.bin holds one input's raw bytes (C order, the input's dtype, as
 * numpy's tofile() writes them); without them every float input is 0.5.
 * Plain C99 over <vinci/runtime.h>: what an application on the device side
 * would link. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vinci/runtime.h>

static void check(vinci_status status, const char* what) {
  if (status != VINCI_OK) {
    fprintf(stderr, "vinci-embed: %s: %s\n", what, vinci_last_error_message());
    exit(1);
  }
}

static void* read_input(const char* path, uint64_t size) {
  FILE* file = fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "vinci-embed: cannot open input '%s'\n", path);
    exit(1);
  }
  void* data = malloc(size);
  size_t got = fread(data, 1, size, file);
  int extra = fgetc(file) != EOF;
  fclose(file);
  if (got != size || extra) {
    fprintf(stderr, "vinci-embed: input '%s' must hold exactly %llu bytes\n", path,
            (unsigned long long)size);
    exit(1);
  }
  return data;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: vinci-embed MODEL.om [INPUT.bin ...]\n");
    return 2;
  }
  vinci_model* model = NULL;
  check(vinci_model_load_from_file(argv[1], &model), argv[1]);
  uint32_t num_inputs = vinci_model_num_inputs(model);
  uint32_t num_outputs = vinci_model_num_outputs(model);
  if (argc != 2 && (uint32_t)(argc - 2) != num_inputs) {
    fprintf(stderr, "vinci-embed: %s takes %u inputs, %d given\n", argv[1], num_inputs, argc - 2);
    return 2;
  }

  vinci_const_buffer* inputs = calloc(num_inputs, sizeof *inputs);
  for (uint32_t i = 0; i < num_inputs; ++i) {
    vinci_tensor_desc desc;
    check(vinci_model_get_input_desc(model, i, &desc), "input descriptor");
    void* data;
    if (argc > 2) {
      data = read_input(argv[2 + i], desc.size);
    } else {
      data = calloc(1, desc.size);
      if (desc.dtype == VINCI_DTYPE_F32)
        for (uint64_t e = 0; e < desc.size / sizeof(float); ++e) ((float*)data)[e] = 0.5f;
    }
    inputs[i].data = data;
    inputs[i].size = desc.size;
  }
  vinci_buffer* outputs = calloc(num_outputs, sizeof *outputs);
  vinci_tensor_desc first;
  for (uint32_t i = 0; i < num_outputs; ++i) {
    vinci_tensor_desc desc;
    check(vinci_model_get_output_desc(model, i, &desc), "output descriptor");
    if (i == 0) first = desc;
    outputs[i].data = malloc(desc.size);
    outputs[i].size = desc.size;
  }

  vinci_context* context = NULL;
  check(vinci_context_create(model, NULL, &context), "context");
  check(vinci_context_run(context, inputs, num_inputs, outputs, num_outputs), "run");
  vinci_profile profile;
  check(vinci_context_get_profile(context, &profile), "profile");

  if (num_outputs > 0 && first.dtype == VINCI_DTYPE_F32) {
    const float* values = outputs[0].data;
    uint64_t count = first.size / sizeof(float);
    printf("%s: top-5 of %llu:", first.name, (unsigned long long)count);
    int taken[5] = {-1, -1, -1, -1, -1};
    for (int rank = 0; rank < 5 && rank < (int)count; ++rank) {
      int best = -1;
      for (uint64_t e = 0; e < count; ++e) {
        int used = 0;
        for (int r = 0; r < rank; ++r) used |= taken[r] == (int)e;
        if (!used && (best < 0 || values[e] > values[best])) best = (int)e;
      }
      taken[rank] = best;
      printf(" %d (%.4f)", best, values[best]);
    }
    printf("\n");
  }
  vinci_model_info info;
  check(vinci_model_get_info(model, &info), "model info");
  printf("simulated: %llu cycles, %.1f us on the %s timing model (published numbers, not a "
         "measurement)\n", (unsigned long long)profile.cycles, profile.simulated_us, info.soc);

  vinci_context_destroy(context);
  vinci_model_release(model);
  for (uint32_t i = 0; i < num_inputs; ++i) free((void*)inputs[i].data);
  for (uint32_t i = 0; i < num_outputs; ++i) free(outputs[i].data);
  free(inputs);
  free(outputs);
  return 0;
}
