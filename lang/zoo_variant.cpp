// zoo_variant.hpp: a network's layers as a signature per layer, matched against the zoo's networks.
#include "lang/zoo_variant.hpp"

#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string_view>
#include <system_error>
#include <vector>

namespace ridge::lang {
namespace {

namespace fs = std::filesystem;

void mix(std::size_t& h, std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

std::size_t hash_text(std::string_view s) { return std::hash<std::string_view>{}(s); }

// A real to six significant digits, so that float32 and double spellings of one figure agree.
std::size_t hash_real(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return hash_text(buf);
}

std::size_t hash_attrs(const ir::Attrs& attrs) {
  std::size_t h = 0;
  for (const auto& [name, value] : attrs.items()) {
    mix(h, hash_text(name));
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, double>) mix(h, hash_real(v));
          else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>)
            for (const std::int64_t x : v) mix(h, std::hash<std::int64_t>{}(x));
          else mix(h, std::hash<T>{}(v));
        },
        value);
  }
  return h;
}

// A signature per layer: its op, attributes and shape, and its inputs' signatures (in order, or as a
// multiset for the commutative add and mul), so equal signatures at the outputs mean equal graphs
// whatever the layers are called and however independent layers were ordered.
std::vector<std::size_t> signatures(const ir::Network& n) {
  static const ir::Op add = ir::op("add"), mul = ir::op("mul");
  std::vector<std::size_t> sig(n.layers.size());
  for (std::size_t i = 0; i < n.layers.size(); ++i) {
    const ir::Layer& l = n.layers[i];
    std::size_t h = std::hash<std::uint16_t>{}(l.op.id);
    mix(h, hash_attrs(l.attrs));
    for (const std::int64_t d : l.output) mix(h, std::hash<std::int64_t>{}(d));
    std::vector<std::size_t> inputs;
    for (const ir::LayerId id : l.inputs) inputs.push_back(sig[id]);
    if (l.op == add || l.op == mul) std::sort(inputs.begin(), inputs.end());
    for (const std::size_t s : inputs) mix(h, s);
    sig[i] = h;
  }
  return sig;
}

std::string number(std::int64_t v) { return std::to_string(v); }

}  // namespace

bool same_layers(const ir::Network& a, const ir::Network& b) {
  if (a.layers.size() != b.layers.size()) return false;
  std::vector<std::size_t> sa = signatures(a), sb = signatures(b);
  if (sa[a.output] != sb[b.output]) return false;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return sa == sb;   // every layer, the ones that feed no output (a held auxiliary head) included
}

std::optional<std::string> zoo_variant_text(const ir::Network& network, const std::string& written_to,
                                            const std::string& models_dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(models_dir, ec))
    if (entry.path().extension() == ".net") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  const ir::Shape& input = network.input().output;
  const ir::Shape& output = network.layers.at(network.output).output;
  for (const fs::path& file : files) {
    try {
      const std::vector<std::string> params = network_parameters(file.string());
      const auto has = [&](const char* p) { return std::find(params.begin(), params.end(), p) != params.end(); };
      // The parameters the model shows, in the zoo file's order.
      std::map<std::string, std::string> bound;
      if (has("resolution") && input.size() == 3 && input[1] == input[2]) bound["resolution"] = number(input[1]);
      if (has("seq_len") && input.size() == 1) bound["seq_len"] = number(input[0]);
      if (has("classes") && output.size() == 1) bound["classes"] = number(output[0]);
      const ir::Network candidate = load_network(file.string(), bound);
      if (!same_layers(network, candidate)) continue;

      std::string args;
      for (const std::string& p : params)
        if (const auto it = bound.find(p); it != bound.end()) args += (args.empty() ? "" : ", ") + p + ": " + it->second;
      const fs::path from = fs::absolute(fs::path(written_to), ec).parent_path();
      // Relative where the text is written near the zoo (two folders in common below the root: it then
      // moves with the tree), else absolute.
      const fs::path zoo_file = fs::absolute(file, ec).lexically_normal();
      const auto common = [](const fs::path& a, const fs::path& b) {
        int n = 0;
        for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end() && *i == *j; ++i, ++j) ++n;
        return n - 1;   // the root itself is no folder in common
      };
      fs::path path = zoo_file;
      if (common(zoo_file, from.lexically_normal()) >= 2) path = fs::relative(zoo_file, from, ec);
      if (ec || path.empty()) path = zoo_file;
      std::string name = net_identifier(network.name);
      if (name == candidate.name) name += "_imported";   // one namespace: the variant may not take its base's name
      return "# " + network.name + ": " + std::to_string(network.layers.size()) + " layers, written by Ridge: the zoo's " +
             file.filename().string() + " at these parameters (the same layers, names aside).\n"
             "import \"" + path.generic_string() + "\"\n\n"
             "network " + name + " = " + candidate.name + "(" + args + ")\n";
    } catch (const Error&) {
      continue;   // a zoo file that does not bind these parameters is not this model
    }
  }
  return std::nullopt;
}

std::optional<std::string> zoo_variant_text(const ir::Network& network, const std::string& written_to) {
  return zoo_variant_text(network, written_to, RIDGE_MODELS_DIR);
}

}  // namespace ridge::lang
