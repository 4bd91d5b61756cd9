/* seed_formats.h: what RAF's and Furiosa's Chrome traces mean beyond the categories Kineto writes:
 * which of their spans are device work (RAF's stream tracks, Furiosa's NPU spans), their devices and
 * streams, and RAF's args_string as PyTorch's "Input Dims". */
#ifndef TDB_SEED_FORMATS_H
#define TDB_SEED_FORMATS_H
#include "jsonbuf.h"
#include <stddef.h>
#include <stdint.h>

/* What a span of category cat (n bytes, any case) named name is, by the seed systems' own rules, or -1
 * when the category is none of theirs. has_pe / has_instruction: the span's args carry pe_index /
 * instruction_index (Furiosa's NPU spans).
 *   Furiosa "NPU" spans with a pe_index: Load and Store move data (memcpy), spans with an
 *   instruction_index are the NPU's operators (kernels), the rest its executions (kind execution);
 *   "Nux" (host work: inferences, operators) are operators, "Runtime" spans (profiler.record labels)
 *   ranges (the Chrome reader asks only for those without a "correlation": Kineto's old exports name
 *   CUDA runtime calls "Runtime" too, and give each one).
 *   RAF's stream tracks ("Default Stream", "Stream N": the VM's CUDA streams): kernels. */
int seed_kind(const char *cat, size_t n, const char *name, size_t name_n, int has_pe, int has_instruction);

/* RAF's stream number of a category ("Default Stream" 0, "Stream N" N), or -1. */
int64_t raf_stream(const char *cat, size_t n);

/* RAF's args_string ("T<768x768xf32>,T<768xf16>,|T<768x768xf16>": the inputs before '|', constants left
 * out, tuples in parentheses) as args PyTorch's exporter writes: appends ,"Input Dims":[[768,768],[768]]
 * and ,"Input type":["f32","f16"] to b (a tuple input: a list of its tensors' dims). 0 when written, 1
 * when s is not that form (nothing written), -1 out of memory. */
int raf_input_args(const char *s, size_t n, struct buf *b);

#endif
