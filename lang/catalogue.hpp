// Names for the files users pass most: `simulate vit_b_16 a100-sxm4-40gb` means the zoo's
// models/vit_b_16.net on the catalogue's hw/a100-sxm4-40gb.hw. An argument that names an existing file
// is that file; otherwise NAME is looked up as models/NAME.net (hw/NAME.hw) under the working
// directory, then in the source tree Ridge was built from (runtimes/NAME.rt for a runtime). A name found nowhere is returned as given,
// so loading it reports the missing file.
#pragma once

#include <string>

namespace ridge::lang {

std::string resolve_network_path(const std::string& arg);
std::string resolve_device_path(const std::string& arg);
std::string resolve_runtime_path(const std::string& arg);   // runtimes/NAME.rt

}  // namespace ridge::lang
