//===- DvTestPasses.h - test-only passes over dv ----------------*- C++ -*-===//
#ifndef VINCI_DIALECTS_DV_DVTESTPASSES_H
#define VINCI_DIALECTS_DV_DVTESTPASSES_H

namespace vinci::dv {
/// Registers `--test-dv-pipes`, which attaches a remark naming each dv op's
/// pipe (PipeOpInterface::getPipe) so lit tests can check the derivation.
void registerTestPasses();
} // namespace vinci::dv

#endif // VINCI_DIALECTS_DV_DVTESTPASSES_H
