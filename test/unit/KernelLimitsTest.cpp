// The compiler's limits on a kernel agree with the .om format's, which the
// runtime enforces when it loads a model: a kernel the partition forms and
// the templates lower must never be one the loader refuses.
#include "passes/KernelRules.h"
#include "vinci/format/container.h"

#include <gtest/gtest.h>

TEST(KernelLimits, ArgumentsMatchTheOmKernelTable) {
  EXPECT_EQ(vinci::kMaxKernelArguments, vinci::format::kMaxKernelArgs);
}
