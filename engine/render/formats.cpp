#include "engine/render/formats.hpp"

#include <array>

namespace ridge::engine::render {

std::span<const Format> formats() {
  static constexpr std::array kFormats{
      Format{"table", ".txt", &table_format},
      Format{"csv", ".csv", &csv_format},
      Format{"json", ".json", &json_format},
  };
  return kFormats;
}

const Format* format_named(std::string_view name) {
  for (const Format& f : formats())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace ridge::engine::render
