#include "parse.hpp"
#include <catch2/catch.hpp>
TEST_CASE("a100-sxm4-40gb.hw parses") {
  const auto d = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  CHECK(d.id == "a100-sxm4-40gb");
}
