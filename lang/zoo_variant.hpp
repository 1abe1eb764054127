// `--emit-net` for a model that is a zoo architecture (issue #38): when a network (an imported .onnx,
// for one) elaborates to the same layers as a zoo file's network at some parameters, its text is an
// import of that file and a one-line variant, `network resnet50_imported = resnet50(resolution: 224,
// classes: 1000)`, rather than every layer written out.
//
// "The same layers": the same ops, attributes (reals to six significant digits: an exporter's float32
// 1e-5 is the zoo's 1e-5), output shapes and wiring, layer names and the order of independent layers
// aside, and the operands of add and mul in either order. The zoo network is tried at the parameters
// the model shows: `resolution` from a square image input, `seq_len` from a token input, `classes`
// from a one-axis output.
#pragma once

#include "lang/ir/network.hpp"

#include <optional>
#include <string>

namespace ridge::lang {

// The variant's text when `network` is one of the `.net` files in `models_dir`; the import names the
// file relative to `written_to`'s directory, where the text will be written. Nothing when no zoo
// network matches. Without `models_dir`, the zoo of the source tree Ridge was built from.
std::optional<std::string> zoo_variant_text(const ir::Network& network, const std::string& written_to,
                                            const std::string& models_dir);
std::optional<std::string> zoo_variant_text(const ir::Network& network, const std::string& written_to);

// Whether two networks have the same layers in the sense above.
bool same_layers(const ir::Network& a, const ir::Network& b);

}  // namespace ridge::lang
