//===- EinsumExpander.cpp - ONNX Einsum as diagonals, sums and one batched matmul ---===//
//
// Einsum of one or two operands, expanded into vg ops the backend lowers.
//
//===----------------------------------------------------------------------===//
#include "onnx/Importer.h"

#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace vinci::onnx_import {
namespace {

/// One Einsum operand while it is rewritten: its value and one label a dim.
struct EinsumTerm {
  Value value;
  std::string labels;
};

/// Einsum's labels of one term, "..." spelled as digits (one a dim it
/// covers) so that every dim has one character. Empty on a malformed term.
std::optional<std::string> einsumLabels(StringRef term, int64_t rank) {
  std::string labels;
  size_t ellipsis = term.find("...");
  std::string letters = term.str();
  if (ellipsis != StringRef::npos)
    letters.erase(ellipsis, 3);
  if (!llvm::all_of(letters, [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  int64_t covered = rank - static_cast<int64_t>(letters.size());
  if (covered < 0 || (covered > 0 && ellipsis == StringRef::npos) || covered > 10)
    return std::nullopt;
  for (size_t i = 0; i < term.size();) {
    if (term.substr(i).starts_with("...")) {
      for (int64_t d = 0; d < covered; ++d)
        labels += char('0' + d);
      i += 3;
    } else {
      labels += term[i++];
    }
  }
  return labels;
}

// einsum: a label repeated within a term takes the diagonal (multiply by an
// identity mask, sum one of the two dims); labels in no other term and not
// in the output are summed; two terms contract as a batched matmul
// [batch, left, summed] x [batch, summed, right]; a transpose gives the
// output's order.
LogicalResult convertEinsum(NodeImporter &n) {
  std::string equation;
  for (char c : n.attrString("equation", ""))
    if (c != ' ')
      equation += c;
  StringRef text(equation);
  auto [inputsText, outputText] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<StringRef> termTexts;
  inputsText.split(termTexts, ',');
  if (termTexts.size() != n.numInputs())
    return n.fail("equation '" + equation + "' has " + Twine(termTexts.size()) +
                  " terms for " + Twine(n.numInputs()) + " inputs");
  if (termTexts.size() > 2)
    return n.fail("equation '" + equation + "' has " + Twine(termTexts.size()) +
                  " operands; Vinci takes one or two: split it into pairwise Einsum nodes");
  SmallVector<EinsumTerm> terms;
  for (auto [i, termText] : llvm::enumerate(termTexts)) {
    std::optional<std::string> labels = einsumLabels(termText, n.typeOf(i).getRank());
    if (!labels)
      return n.fail("term '" + termText + "' does not match input " + Twine(i) + " of rank " +
                    Twine(n.typeOf(i).getRank()));
    terms.push_back({n.in(i), *labels});
  }
  std::string output;
  if (explicitOutput) {
    int64_t ellipsisDims = 0;
    for (const EinsumTerm &term : terms)
      ellipsisDims = std::max<int64_t>(
          ellipsisDims, llvm::count_if(term.labels, [](char c) { return std::isdigit(c); }));
    std::optional<std::string> labels =
        einsumLabels(outputText, static_cast<int64_t>(outputText.size()) -
                                     (outputText.contains("...") ? 3 - ellipsisDims : 0));
    if (!labels)
      return n.fail("output term '" + outputText + "' is malformed");
    output = *labels;
  } else {
    // Implicit output: the ellipsis dims, then the labels used once, sorted.
    std::map<char, int> uses;
    for (const EinsumTerm &term : terms)
      for (char c : term.labels)
        ++uses[c];
    for (auto [c, count] : uses)
      if (std::isdigit(c) || count == 1)
        output += c;
  }
  auto dimOf = [&](const EinsumTerm &term, size_t d) {
    return cast<RankedTensorType>(term.value.getType()).getDimSize(d);
  };
  auto transposeTo = [&](EinsumTerm &term, StringRef order) -> LogicalResult {
    if (term.labels == order)
      return success();
    SmallVector<int64_t> perm;
    for (char c : order)
      perm.push_back(static_cast<int64_t>(term.labels.find(c)));
    FailureOr<Value> moved = n.make1("vg.transpose", {term.value}, {n.i64s("perm", perm)});
    if (failed(moved))
      return failure();
    term = {*moved, order.str()};
    return success();
  };
  for (auto [t, term] : llvm::enumerate(terms)) {
    // Diagonals: x[.., i, .., i', ..] * eye(i, i') summed over i'.
    for (size_t p = 0; p < term.labels.size(); ++p) {
      size_t q;
      while ((q = term.labels.find(term.labels[p], p + 1)) != std::string::npos) {
        int64_t size = dimOf(term, p);
        if (dimOf(term, q) != size)
          return n.fail("label '" + Twine(term.labels[p]) + "' has sizes " + Twine(size) +
                        " and " + Twine(dimOf(term, q)) + " in one term");
        SmallVector<int64_t> maskShape(term.labels.size(), 1);
        maskShape[p] = maskShape[q] = size;
        SmallVector<double> eye;
        for (int64_t i = 0; i < size; ++i)
          for (int64_t j = 0; j < size; ++j)
            eye.push_back(i == j ? 1.0 : 0.0);
        Type element = elementOf(term.value);
        FailureOr<Value> masked = apply(
            n, "vg.mul", {term.value, constantOf(n, RankedTensorType::get(maskShape, element), eye)});
        FailureOr<Value> diagonal =
            apply(n, "vg.reduce_sum", {masked},
                  {n.i64s("axes", {static_cast<int64_t>(q)}), n.i64("keepdims", 0)});
        if (failed(diagonal))
          return failure();
        term.value = *diagonal;
        term.labels.erase(q, 1);
      }
    }
    // Labels that no other term and not the output use are summed now.
    SmallVector<int64_t> summed;
    std::string kept;
    for (auto [d, c] : llvm::enumerate(term.labels)) {
      bool elsewhere = output.find(c) != std::string::npos ||
                       (terms.size() == 2 && terms[1 - t].labels.find(c) != std::string::npos);
      if (elsewhere)
        kept += c;
      else
        summed.push_back(static_cast<int64_t>(d));
    }
    if (!summed.empty()) {
      FailureOr<Value> reduced = n.make1("vg.reduce_sum", {term.value},
                                         {n.i64s("axes", summed), n.i64("keepdims", 0)});
      if (failed(reduced))
        return failure();
      term = {*reduced, kept};
    }
  }
  EinsumTerm result = terms.front();
  if (terms.size() == 2) {
    std::string batch, left, contracted, right;
    for (char c : terms[0].labels)
      (terms[1].labels.find(c) == std::string::npos ? left
       : output.find(c) != std::string::npos        ? batch
                                                    : contracted) += c;
    for (char c : terms[1].labels)
      if (terms[0].labels.find(c) == std::string::npos)
        right += c;
    for (char c : batch + contracted)
      if (dimOf(terms[0], terms[0].labels.find(c)) != dimOf(terms[1], terms[1].labels.find(c)))
        return n.fail("label '" + Twine(c) + "' has different sizes in the two terms "
                      "(broadcasting is not supported)");
    auto extent = [&](const EinsumTerm &term, StringRef labels) {
      int64_t size = 1;
      for (char c : labels)
        size *= dimOf(term, term.labels.find(c));
      return size;
    };
    SmallVector<int64_t> resultShape;
    for (char c : batch + left)
      resultShape.push_back(dimOf(terms[0], terms[0].labels.find(c)));
    for (char c : right)
      resultShape.push_back(dimOf(terms[1], terms[1].labels.find(c)));
    int64_t batchSize = extent(terms[0], batch), m = extent(terms[0], left),
            k = extent(terms[0], contracted), cols = extent(terms[1], right);
    if (failed(transposeTo(terms[0], batch + left + contracted)) ||
        failed(transposeTo(terms[1], batch + contracted + right)))
      return failure();
    FailureOr<Value> product = apply(
        n, "vg.matmul",
        {n.make1("vg.reshape", {terms[0].value}, {n.i64s("shape", {batchSize, m, k})}),
         n.make1("vg.reshape", {terms[1].value}, {n.i64s("shape", {batchSize, k, cols})})});
    FailureOr<Value> shaped = apply(n, "vg.reshape", {product}, {n.i64s("shape", resultShape)});
    if (failed(shaped))
      return failure();
    result = {*shaped, batch + left + right};
  }
  if (result.labels.size() != output.size() ||
      !llvm::all_of(output, [&](char c) { return result.labels.find(c) != std::string::npos; }))
    return n.fail("output term '" + outputText + "' names labels the inputs do not have");
  if (failed(transposeTo(result, output)))
    return failure();
  return n.define(ArrayRef<Value>{result.value});
}

} // namespace

void populateEinsumConverter(ConverterTable &table) {
  table["Einsum"] = convertEinsum;
}

} // namespace vinci::onnx_import
