// What the parallel tests share: the DGX A100 80GB system and mixed-precision Adam in bf16.
#pragma once

#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <string>

namespace ridge::testing {

inline ir::Device dgx() { return lang::load_device(std::string(RIDGE_HW_DIR) + "/dgx-a100-80gb.hw"); }

inline engine::Options mixed_adam() {
  engine::Options o;
  o.precision = ir::Precision::BF16;
  o.optimizer = engine::Optimizer::Adam;
  return o;
}

}  // namespace ridge::testing
