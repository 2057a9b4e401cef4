/* A plain C application embedding the runtime: load a model, describe it,
 * run it once on zero-filled inputs, print the simulated cycles. */
#include <stdio.h>
#include <stdlib.h>

#include <vinci/runtime.h>

static int check(vinci_status status) {
  if (status != VINCI_OK) {
    fprintf(stderr, "consumer: %s: %s\n", vinci_status_name(status), vinci_last_error_message());
    exit(1);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: consumer MODEL.om\n");
    return 2;
  }
  vinci_model* model = NULL;
  check(vinci_model_load_from_file(argv[1], &model));
  uint32_t num_inputs = vinci_model_num_inputs(model), num_outputs = vinci_model_num_outputs(model);
  vinci_const_buffer* inputs = calloc(num_inputs, sizeof *inputs);
  vinci_buffer* outputs = calloc(num_outputs, sizeof *outputs);
  for (uint32_t i = 0; i < num_inputs; ++i) {
    vinci_tensor_desc desc;
    check(vinci_model_get_input_desc(model, i, &desc));
    printf("input %u %s %s rank %u\n", i, desc.name, vinci_dtype_name(desc.dtype), desc.rank);
    inputs[i].data = calloc(1, desc.size);
    inputs[i].size = desc.size;
  }
  for (uint32_t i = 0; i < num_outputs; ++i) {
    vinci_tensor_desc desc;
    check(vinci_model_get_output_desc(model, i, &desc));
    outputs[i].data = calloc(1, desc.size);
    outputs[i].size = desc.size;
  }
  vinci_context* context = NULL;
  check(vinci_context_create(model, NULL, &context));
  check(vinci_context_run(context, inputs, num_inputs, outputs, num_outputs));
  vinci_profile profile;
  check(vinci_context_get_profile(context, &profile));
  printf("ran %u tasks: %llu simulated cycles\n", profile.num_tasks, (unsigned long long)profile.cycles);
  vinci_context_destroy(context);
  vinci_model_release(model);
  for (uint32_t i = 0; i < num_inputs; ++i) free((void*)inputs[i].data);
  for (uint32_t i = 0; i < num_outputs; ++i) free(outputs[i].data);
  free(inputs);
  free(outputs);
  return 0;
}
