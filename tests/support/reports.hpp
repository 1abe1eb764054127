// What the engine tests look up: a catalogue device by its file stem, and a report's layer by name.
#pragma once

#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace ridge::testing {

// hw/ID.hw, as the program loads it.
inline ir::Device catalogue_device(const std::string& id) {
  return lang::load_device(std::string(RIDGE_HW_DIR) + "/" + id + ".hw");
}

// The report's layer of that name (a test failure when it has none).
inline const engine::LayerRow& layer_named(const engine::Report& report, const std::string& name) {
  for (const engine::LayerRow& l : report.layers)
    if (l.name == name) return l;
  FAIL("no layer " << name);
  throw;
}

}  // namespace ridge::testing
