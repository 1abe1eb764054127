// Did-you-mean (lang/suggest.hpp): offered for real typos, withheld where the nearest name is another
// word ("mish" is not a misspelt "min"), in both grammars.
#include "parse.hpp"
#include "suggest.hpp"

#include <catch2/catch.hpp>

using namespace ridge;

namespace {

std::string net_error(const std::string& op) {
  try {
    lang::parse_network("network n {\n  input x: [3, 8, 8]\n  return x -> " + op + "\n}\n", "n.net");
  } catch (const lang::Error& e) {
    return e.what();
  }
  return "";
}

std::string hw_error(const std::string& line) {
  try {
    lang::parse_device("device \"d\" {\n  source = \"test\"\n  peak.fp32 = 1 TFLOP/s\n  " + line + "\n}\n", "d.hw");
  } catch (const lang::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("typo distance counts a swap of neighbours as one edit") {
  CHECK(lang::typo_distance("lienar", "linear") == 1);
  CHECK(lang::typo_distance("kitten", "sitting") == 3);   // the textbook Levenshtein example
  CHECK(lang::typo_distance("", "abc") == 3);
  CHECK(lang::typo_distance("conv", "conv") == 0);
}

TEST_CASE("a misspelt op gets the op it was meant to be") {
  CHECK_THAT(net_error("lienar(8)"), Catch::Contains("unknown op or block 'lienar' (did you mean 'linear'?)"));
  CHECK_THAT(net_error("batchnrom"), Catch::Contains("(did you mean 'batchnorm'?)"));
  CHECK_THAT(net_error("conv2d(8, 3)"), Catch::Contains("(did you mean 'conv'?)"));
}

TEST_CASE("an unknown op gets no suggestion when the nearest name is another word") {
  // The two misleading suggestions issue #18 reported, against the names they were offered from.
  CHECK(lang::closest_name("mish", {"min", "max"}).empty());
  CHECK(lang::closest_name("pad", {"max", "min"}).empty());
  for (const std::string op : {"blur", "warp", "foo", "xy"}) {
    CAPTURE(op);
    const std::string error = net_error(op);
    CHECK_THAT(error, Catch::Contains("unknown op or block '" + op + "'"));
    CHECK_THAT(error, !Catch::Contains("did you mean"));
  }
}

TEST_CASE("a misspelt .hw key gets the key it was meant to be") {
  CHECK_THAT(hw_error("memory.bandwith = 900 GB/s"),
             Catch::Contains("unknown key 'memory.bandwith' (did you mean 'memory.bandwidth'?)"));
  CHECK_THAT(hw_error("lanch_overhead = 5 us"), Catch::Contains("(did you mean 'launch_overhead'?)"));
  CHECK_THAT(hw_error("matrx.fp16 = 100 TFLOP/s"), Catch::Contains("(did you mean 'matrix.fp16'?)"));
  CHECK_THAT(hw_error("link.nvlink.bandwidht = 300 GB/s"), Catch::Contains("(did you mean 'link.nvlink.bandwidth'?)"));
  CHECK_THAT(hw_error("colour = 5 us"), !Catch::Contains("did you mean"));
}
