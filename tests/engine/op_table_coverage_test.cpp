// Every op of the vocabulary has a hand-worked row in one of the op tables (op_table.hpp).
#include "tests/engine/op_table.hpp"

#include "lang/ir/ops.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

namespace ridge::testing {

std::vector<PinnedOps>& pinned_op_tables() {
  static std::vector<PinnedOps> tables;
  return tables;
}

}  // namespace ridge::testing

TEST_CASE("every op of the vocabulary has a hand-worked cost row") {
  std::set<std::string> pinned;
  for (const auto table : ridge::testing::pinned_op_tables())
    for (const std::string& op : table()) pinned.insert(op);
  std::set<std::string> missing;
  for (const auto& spec : ridge::ir::all_ops())
    if (!pinned.count(std::string(spec.name))) missing.insert(std::string(spec.name));
  INFO("ops without a hand-worked row: " << [&] {
    std::string s;
    for (const auto& m : missing) s += m + " ";
    return s;
  }());
  CHECK(missing.empty());
}
