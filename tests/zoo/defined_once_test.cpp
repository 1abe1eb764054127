// The zoo defines each architecture once (issue #38): a block is written in one file, and a published
// size is a variant of its architecture's network (`network llama2_13b = llama(layers: 40, ...)`), not
// a copy kept in step by hand. Checked on the text: no block definition (comments and spacing aside)
// appears in two zoo files, and the families torchvision or Hugging Face build from one class are
// variants of one network.
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The file without comments, every run of blanks made one space.
std::string normalised(const std::string& text) {
  std::string out;
  bool comment = false, blank = false;
  for (const char c : text) {
    if (c == '#') comment = true;
    if (c == '\n') comment = false;
    if (comment) continue;
    if (c == ' ' || c == '\n' || c == '\t') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

// Each `block NAME(...) { ... }` of a normalised text, whole: braces counted to the closing one.
std::vector<std::string> blocks(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; (at = text.find("block ", at)) != std::string::npos;) {
    if (at > 0 && text[at - 1] != ' ' && text[at - 1] != '}') {
      ++at;
      continue;
    }
    const std::size_t open = text.find('{', at);
    int depth = 0;
    std::size_t end = open;
    for (; end < text.size(); ++end) {
      if (text[end] == '{') ++depth;
      if (text[end] == '}' && --depth == 0) break;
    }
    out.push_back(text.substr(at, end + 1 - at));
    at = end;
  }
  return out;
}

}  // namespace

TEST_CASE("no block is defined in two zoo files") {
  std::map<std::string, std::string> first_file;   // block text -> the file that defines it
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(RIDGE_MODELS_DIR)) {
    if (entry.path().extension() != ".net") continue;
    for (const std::string& block : blocks(normalised(read(entry.path())))) {
      ++seen;
      const auto [it, fresh] = first_file.emplace(block, entry.path().filename().string());
      INFO(block.substr(0, 60) << "... in " << entry.path().filename().string() << " and " << it->second);
      CHECK(fresh);
    }
  }
  CHECK(seen > 40);   // the scan found the zoo's blocks
}

TEST_CASE("a published size is one line: a variant of its family's network") {
  // file -> the network it varies (from the files' own import and variant lines).
  const std::map<std::string, std::string> variants{
      {"llama2_7b", "llama"},          {"llama2_13b", "llama"},        {"llama2_70b", "llama"},
      {"llama3_8b", "llama"},          {"llama3_70b", "llama"},        {"mistral_7b", "llama"},
      {"mixtral_8x7b", "llama"},
      {"gpt2_medium", "gpt2"},         {"gpt2_large", "gpt2"},         {"gpt2_xl", "gpt2"},
      {"bert_large", "bert_base"},     {"vit_b_32", "vit_b_16"},       {"vit_l_16", "vit_b_16"},
      {"efficientnet_b1", "efficientnet_b0"}, {"efficientnet_b2", "efficientnet_b0"},
      {"efficientnet_b3", "efficientnet_b0"}, {"efficientnet_b4", "efficientnet_b0"},
      {"efficientnet_v2_s", "efficientnet_b0"}, {"vgg11", "vgg16"}, {"vgg13", "vgg16"},
      {"vgg19", "vgg16"},              {"vgg16_bn", "vgg16"},          {"resnext50_32x4d", "resnet50"},
      {"wide_resnet50_2", "resnet50"}};
  for (const auto& [file, base] : variants) {
    const std::string text = normalised(read(fs::path(RIDGE_MODELS_DIR) / (file + ".net")));
    INFO(file);
    CHECK(text.find("import \"" + base + ".net\"") != std::string::npos);
    CHECK(std::regex_search(text, std::regex("network " + file + " = " + base + "\\(")));
    CHECK(blocks(text).empty());
    // And --set reaches the base's parameters through the variant.
    const auto params = ridge::lang::network_parameters((fs::path(RIDGE_MODELS_DIR) / (file + ".net")).string());
    CHECK(params == ridge::lang::network_parameters((fs::path(RIDGE_MODELS_DIR) / (base + ".net")).string()));
  }
}
