// The meaning of a `.hw` file: from its syntax tree to an ir::Device, refusing what makes no sense
// (unknown or repeated keys, units of the wrong dimension, figures without a source, ...).
#pragma once

#include "lang/hw/ast.hpp"
#include "lang/hw/config.hpp"
#include "lang/hw/error_handler.hpp"
#include "lang/ir/device.hpp"
#include "lang/ir/runtime.hpp"

#include <string>

namespace ridge::lang::hw {

// Throws lang::Error carrying every problem found (up to a limit), each pointing at its cause.
ir::Device check_device(const ast::Device& device, const parser::position_cache& positions,
                        const Locator& locator, std::string id);
// The same for a runtime description (`runtime "NAME" { ... }`). With a `base`, the runtime that
// file's `base = "NAME"` names (already loaded): the file starts from it and its keys replace the
// base's, a `fuse.NAME` the base's pattern of that name.
ir::Runtime check_runtime(const ast::Device& runtime, const parser::position_cache& positions,
                          const Locator& locator, std::string id, const ir::Runtime* base = nullptr);

}  // namespace ridge::lang::hw
