#include "lang/hw/check.hpp"

#include "lang/hw/fusion_pattern.hpp"
#include "lang/hw/units.hpp"
#include "lang/suggest.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace ridge::lang::hw {
namespace {


// Everything a `.hw` key may be, for "unknown key" messages.
constexpr std::string_view kAllowedKeys =
    "kind, source, provenance, peak.PREC, matrix.PREC, measured.PREC, measured.bandwidth, measured.threads, memory.size, "
    "memory.bandwidth, l2.size, l2.bandwidth, launch_overhead, price, sparsity, arch.family, arch.units, arch.clock, arch.matrix_clock, "
    "arch.vector.PREC, arch.matrix.PREC, arch.shared_memory, arch.registers, arch.threads, link.NAME.bandwidth, link.NAME.latency, link.NAME.efficiency, "
    "ppp.CLASS.compute, ppp.CLASS.memory, ppp.CLASS.PASS.compute, ppp.CLASS.PASS.memory, system.count, "
    "system.interconnect, system.node_size, system.node_interconnect, system.step_overhead, system.torus, allocator.first_touch, allocator.mmap_threshold";
constexpr std::string_view kKinds = "gpu, cpu, tpu, soc, accelerator";
constexpr std::array<std::string_view, 20> kRuntimeKeys{"source", "base", "version", "provenance", "launch_overhead", "step_overhead",
                                                       "host.forward_op", "host.backward_op",
                                                       "attention", "logits", "kv_cache", "kv_block", "narrow_conv", "optimizer",
                                                       "quant.activations", "quant.cast", "quant.scaling", "quant.kv_cache",
                                                       "fusion", "fuse.NAME"};

// Every key a `.hw` may hold, spelled out for did-you-mean (links by the name the misspelt key gives).
std::vector<std::string> spelled_keys(const std::vector<std::string>& parts) {
  std::vector<std::string> keys{"kind", "source", "provenance", "measured.bandwidth", "measured.threads", "memory.size", "memory.bandwidth",
                                "l2.size", "l2.bandwidth", "launch_overhead", "price", "sparsity", "arch.family", "arch.units", "arch.clock",
                                "arch.matrix_clock", "arch.shared_memory", "arch.registers", "arch.threads", "system.count", "system.interconnect", "system.node_size",
                                "system.node_interconnect", "system.step_overhead", "system.torus", "allocator.first_touch",
                                "allocator.mmap_threshold"};
  for (const ir::Precision p : ir::all_precisions())
    for (const char* head : {"peak.", "matrix.", "measured.", "arch.vector.", "arch.matrix."})
      keys.push_back(head + std::string(ir::precision_name(p)));
  const std::string link = parts.size() == 3 ? parts[1] : "nvlink";
  for (const char* field : {".bandwidth", ".latency", ".efficiency"}) keys.push_back("link." + link + field);
  for (const ir::OpClass c : ir::all_op_classes()) {
    std::vector<std::string> passes{""};
    for (const ir::Pass p : ir::all_passes()) passes.push_back("." + std::string(ir::pass_name(p)));
    for (const std::string& pass : passes)
      for (const char* what : {".compute", ".memory"})
        keys.push_back("ppp." + std::string(ir::op_class_name(c)) + pass + what);
  }
  return keys;
}

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(key);
  while (std::getline(in, part, '.')) parts.push_back(part);
  return parts;
}

std::string format_number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// Collected per link until the end, since bandwidth and latency are separate lines.
struct PendingLink {
  std::optional<ir::Figure> bandwidth;
  std::optional<ir::Figure> latency;
  std::optional<ir::Figure> efficiency;
  const ast::Entry* first = nullptr;
};

class Checker {
 public:
  Checker(const parser::position_cache& positions, const Locator& locator)
      : positions_(positions), locator_(locator) {}

  // A runtime (runtime "NAME" { ... }): its own keys, the same figures, units and sources.
  ir::Runtime run_runtime(const ast::Device& ast, std::string id, const ir::Runtime* base) {
    if (base) runtime_ = *base;
    runtime_.id = std::move(id);
    runtime_.name = ast.name.text;
    if (runtime_.name.empty()) error(diag::kHwValue, ast.name, "the runtime's name is empty; name the stack and its version");
    for (const ast::Entry& entry : ast.entries) {
      const std::string& key = entry.key.text;
      if (key == "source") {
        sticky_source(entry);
        continue;
      }
      if (const auto first = seen_.find(key); first != seen_.end()) {
        error_at(diag::kHwDuplicateKey, begin_of(entry.key), "duplicate key '" + key + "'",
                 {{begin_of(first->second->key), "'" + key + "' first given here"}});
        continue;
      }
      seen_.emplace(key, &entry);
      runtime_entry(entry);
    }
    if (runtime_.version.empty())
      error(diag::kHwIncomplete, ast, "the runtime has no 'version = \"...\"': the release whose behaviour it describes");
    if (error_count_ > 0) throw Error(diagnostics());
    return std::move(runtime_);
  }

  ir::Device run(const ast::Device& ast, std::string id) {
    device_.id = std::move(id);
    device_.name = ast.name.text;
    if (device_.name.empty()) error(diag::kHwValue, ast.name, "the device's name is empty; give it the datasheet's name");
    for (const ast::Entry& entry : ast.entries) entry_(entry);
    whole_file_ = true;
    finish(ast);
    if (error_count_ > 0) throw Error(diagnostics());
    return std::move(device_);
  }

 private:
  using iterator = parser::iterator_type;

  // An error as found: made into a Diagnostic (which quotes its line) only if it is shown.
  struct Found {
    iterator where;
    std::string_view id;
    std::string message;
    std::vector<std::pair<iterator, std::string>> notes;
  };

  iterator begin_of(const x3::position_tagged& node) const { return positions_.position_of(node).begin(); }
  iterator end_of(const x3::position_tagged& node) const { return positions_.position_of(node).end(); }

  // Every error is counted. The entries' errors are found in source order, so only the first
  // kMaxErrors of them can be shown; finish()'s whole-file ones point anywhere, so all are kept until
  // diagnostics() sorts what was kept and shows the first kMaxErrors.
  bool shows_more() const { return whole_file_ || found_.size() < kMaxErrors; }
  void error_at(std::string_view id, iterator where, std::string message,
                std::vector<std::pair<iterator, std::string>> notes = {}) {
    ++error_count_;
    if (shows_more()) found_.push_back({where, id, std::move(message), std::move(notes)});
  }
  void error(std::string_view id, const x3::position_tagged& node, std::string message) {
    error_at(id, begin_of(node), std::move(message));
  }

  std::vector<Diagnostic> diagnostics() {
    std::stable_sort(found_.begin(), found_.end(), [](const Found& a, const Found& b) { return a.where < b.where; });
    std::vector<Diagnostic> shown;
    for (std::size_t i = 0; i < found_.size() && i < kMaxErrors; ++i) {
      Found& f = found_[i];
      Diagnostic d = locator_.error(f.where, f.id, std::move(f.message));
      for (auto& [where, message] : f.notes) d.notes.push_back(locator_.note(where, std::move(message)));
      shown.push_back(std::move(d));
    }
    return limit_errors(std::move(shown), error_count_);
  }

  void entry_(const ast::Entry& entry) {
    const std::string& key = entry.key.text;
    if (key == "source") return sticky_source(entry);
    if (key == "provenance") {
      if (auto text = expect_text(entry, "provenance = \"calibrated 2024-05-01 with ...\"")) device_.provenance.push_back(*text);
      return;
    }
    if (const auto first = seen_.find(key); first != seen_.end())
      return error_at(diag::kHwDuplicateKey, begin_of(entry.key), "duplicate key '" + key + "'",
                      {{begin_of(first->second->key), "'" + key + "' first given here"}});
    seen_.emplace(key, &entry);
    dispatch(entry, split_key(key));
  }

  void dispatch(const ast::Entry& entry, const std::vector<std::string>& parts) {
    const std::string& head = parts[0];
    const std::size_t n = parts.size();
    if (head == "kind" && n == 1) return kind(entry);
    if ((head == "peak" || head == "matrix" || head == "measured") && n == 2) {
      if (head == "measured" && parts[1] == "bandwidth") return assign(device_.measured_bandwidth, entry, Dimension::Bandwidth);
      if (head == "measured" && parts[1] == "threads") {
        if (auto f = whole_count(entry, "'measured.threads' takes the whole number of threads the figures were measured on, e.g. 2"))
          device_.measured_threads = *f;
        return;
      }
      const auto precision = ir::precision_from_name(parts[1]);
      if (!precision)
        return error(diag::kHwUnknownKey, entry.key, "unknown precision '" + parts[1] + "' in '" + entry.key.text + "'; expected one of " +
                                                         ir::precision_names() +
                                                         (head == "measured" ? std::string(", or 'measured.bandwidth' or 'measured.threads'") : std::string()));
      auto& table = head == "peak" ? device_.vector_peak : head == "matrix" ? device_.matrix_peak : device_.measured_peak;
      if (auto f = figure(entry, Dimension::Rate)) table[*precision] = *f;
      return;
    }
    if (head == "memory" && n == 2 && parts[1] == "size") return assign(device_.memory_size, entry, Dimension::Size);
    if (head == "memory" && n == 2 && parts[1] == "bandwidth")
      return assign(device_.memory_bandwidth, entry, Dimension::Bandwidth);
    if (head == "l2" && n == 2 && parts[1] == "size") return assign(device_.l2_size, entry, Dimension::Size);
    if (head == "l2" && n == 2 && parts[1] == "bandwidth") return assign(arch().l2_bandwidth, entry, Dimension::Bandwidth, &entry);
    if (head == "arch" && arch_key(entry, parts)) return;
    if (head == "launch_overhead" && n == 1) return assign(device_.launch_overhead, entry, Dimension::Time);
    if (head == "price" && n == 1) return assign(device_.price, entry, Dimension::Price);
    if (head == "sparsity" && n == 1) return sparsity(entry);
    if (head == "link" && n == 3 && (parts[2] == "bandwidth" || parts[2] == "latency" || parts[2] == "efficiency"))
      return link(entry, parts);
    if (head == "ppp" && (n == 3 || n == 4)) return ppp(entry, parts);
    if (head == "system" && n == 2 && parts[1] == "count") return count(entry);
    if (head == "system" && n == 2 && parts[1] == "interconnect")
      return interconnect(entry, device_.interconnect, interconnect_word_);
    if (head == "system" && n == 2 && parts[1] == "node_interconnect")
      return interconnect(entry, device_.node_interconnect, node_interconnect_word_);
    if (head == "system" && n == 2 && parts[1] == "node_size") return count(entry, device_.node_size, node_size_entry_);
    if (head == "system" && n == 2 && parts[1] == "step_overhead") return assign(device_.step_overhead, entry, Dimension::Time);
    if (head == "system" && n == 2 && parts[1] == "torus") return torus(entry);
    if (head == "allocator" && n == 2 && (parts[1] == "first_touch" || parts[1] == "mmap_threshold")) {
      allocator_entry_ = &entry;
      return parts[1] == "first_touch" ? assign(device_.first_touch, entry, Dimension::Bandwidth)
                                       : assign(device_.mmap_threshold, entry, Dimension::Size);
    }
    // Did-you-mean costs a comparison with every key: made only for an error that is shown.
    const std::string hint = shows_more() ? closest_name(entry.key.text, spelled_keys(parts)) : std::string();
    error(diag::kHwUnknownKey, entry.key, "unknown key '" + entry.key.text + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                                              "; expected one of " + std::string(kAllowedKeys));
  }

  // A word from a fixed set, with its source (recorded for the report), or an error listing the set.
  std::optional<std::string> choice(const ast::Entry& entry, std::initializer_list<std::string_view> allowed) {
    const auto* word = boost::get<ast::Word>(&entry.value.get());
    if (!word || std::find(allowed.begin(), allowed.end(), word->text) == allowed.end()) {
      std::string list;
      for (const std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      error_value(diag::kHwValue, entry.value, "'" + entry.key.text + "' takes one of " + list);
      return std::nullopt;
    }
    auto source = source_of(entry);
    if (!source) return std::nullopt;
    runtime_.sources[entry.key.text] = std::move(*source);
    return word->text;
  }

  void runtime_entry(const ast::Entry& entry) {
    const std::string& key = entry.key.text;
    if (key == "base") {   // loaded before the check (lang/hw/parse_device.cpp); here only its form
      expect_text(entry, "base = \"vllm\"");
      return;
    }
    if (key == "version") {
      if (auto text = expect_text(entry, "version = \"0.6.3\"")) runtime_.version = *text;
      return;
    }
    if (key == "provenance") {
      if (auto text = expect_text(entry, "provenance = \"...\"")) runtime_.provenance.push_back(*text);
      return;
    }
    if (key == "launch_overhead") return assign(runtime_.launch_overhead, entry, Dimension::Time);
    if (key == "step_overhead") return assign(runtime_.step_overhead, entry, Dimension::Time);
    if (key == "host.forward_op") return assign(runtime_.host_forward_op, entry, Dimension::Time);
    if (key == "host.backward_op") return assign(runtime_.host_backward_op, entry, Dimension::Time);
    if (key == "attention") {
      if (auto kernel = choice(entry, {"flash", "flash2", "materialized", "eager", "sdpa"})) runtime_.attention = *kernel;
      return;
    }
    if (key == "logits") {
      if (auto which = choice(entry, {"all", "last"})) runtime_.last_position_logits = *which == "last";
      return;
    }
    if (key == "kv_cache") {
      if (auto layout = choice(entry, {"contiguous", "paged"})) runtime_.kv_cache = *layout;
      return;
    }
    if (key == "kv_block") {
      if (auto block = whole_count(entry, "'kv_block' takes a whole number of tokens, as in 'kv_block = 16'")) runtime_.kv_block = *block;
      return;
    }
    if (key == "narrow_conv") {
      if (auto how = choice(entry, {"vector", "padded"})) runtime_.pads_narrow_channels = *how == "padded";
      return;
    }
    if (key == "optimizer") {
      if (auto how = choice(entry, {"fused", "foreach"})) runtime_.optimizer = *how;
      return;
    }
    if (key == "quant.activations" || key == "quant.kv_cache") {
      if (auto width = choice(entry, {"fp8", "bf16", "fp16"}))
        (key == "quant.activations" ? runtime_.quant_activations : runtime_.quant_kv_cache) = *ir::precision_from_name(*width);
      return;
    }
    if (key == "quant.cast") {
      if (auto how = choice(entry, {"kernel", "fused"})) runtime_.quant_cast = *how;
      return;
    }
    if (key == "quant.scaling") {
      if (auto how = choice(entry, {"static", "delayed", "per_token", "current"})) runtime_.quant_scaling = *how;
      return;
    }
    if (key == "fusion") {
      if (auto passes = choice(entry, {"inference", "training"})) runtime_.fuse_training = *passes == "training";
      return;
    }
    if (key.starts_with("fuse.") && key.size() > 5 && key.find('.', 5) == std::string::npos) {
      const auto text = expect_text(entry, "fuse.conv_bn_act = \"conv -> batchnorm -> elementwise+\"");
      if (!text) return;
      auto parsed = parse_fusion_pattern(key.substr(5), *text);
      if (auto* message = std::get_if<std::string>(&parsed))
        return error_value(diag::kHwValue, entry.value, std::move(*message));
      auto source = source_of(entry);
      if (!source) return;
      runtime_.sources[key] = std::move(*source);
      // A base's pattern of the same name is replaced where it stood (the order decides ties).
      ir::FusionPattern pattern = std::get<ir::FusionPattern>(std::move(parsed));
      const auto same = std::find_if(runtime_.fusions.begin(), runtime_.fusions.end(),
                                     [&](const ir::FusionPattern& p) { return p.name == pattern.name; });
      if (same != runtime_.fusions.end()) *same = std::move(pattern);
      else runtime_.fusions.push_back(std::move(pattern));
      return;
    }
    const std::string hint = shows_more() ? closest_name(key, std::vector<std::string>(kRuntimeKeys.begin(), kRuntimeKeys.end())) : std::string();
    error(diag::kHwUnknownKey, entry.key, "unknown runtime key '" + key + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                                              "; expected one of source, base, version, provenance, launch_overhead, step_overhead, host.forward_op, "
                                              "host.backward_op, attention, "
                                              "logits, kv_cache, kv_block, narrow_conv, optimizer, quant.activations, quant.cast, quant.scaling, "
                                              "quant.kv_cache, fusion, fuse.NAME");
  }

  // `source = "..."`: the source of every figure below it, until the next one.
  void sticky_source(const ast::Entry& entry) {
    if (auto text = expect_text(entry, "source = \"NVIDIA A100 datasheet (2021)\"")) {
      if (text->empty()) return error(diag::kHwValue, boost::get<ast::Text>(entry.value.get()), "empty source; say where the figures below come from");
      sticky_ = *text;
    }
  }

  std::optional<std::string> expect_text(const ast::Entry& entry, std::string_view example) {
    if (const auto* text = boost::get<ast::Text>(&entry.value.get())) return text->text;
    error_value(diag::kHwValue, entry.value, "expected a \"string\", as in '" + std::string(example) + "'");
    return std::nullopt;
  }

  void error_value(std::string_view id, const ast::Value& value, std::string message) {
    const x3::position_tagged& node = boost::apply_visitor(
        [](const auto& v) -> const x3::position_tagged& { return v; }, value.get());
    error(id, node, std::move(message));
  }

  // `sparsity = "2:4"`, with its source: the one structured sparsity the engine describes.
  void sparsity(const ast::Entry& entry) {
    const auto* text = boost::get<ast::Text>(&entry.value.get());
    if (!text || text->text != "2:4")
      return error_value(diag::kHwValue, entry.value, "'sparsity' takes \"2:4\" (2:4 structured sparsity, the one the engine describes)");
    if (auto source = source_of(entry)) device_.sparsity_2_4 = std::move(*source);
  }

  // `system.torus = "4x4x4"`, with its source: one to three whole dimensions (2 to 1024 each, a
  // dimension of 1 is none) whose product finish() checks against system.count.
  void torus(const ast::Entry& entry) {
    const auto* text = boost::get<ast::Text>(&entry.value.get());
    std::vector<int> dims;
    bool ok = text != nullptr && !text->text.empty();
    if (ok) {
      std::size_t at = 0;
      while (ok && at <= text->text.size()) {
        const std::size_t end = std::min(text->text.find('x', at), text->text.size());
        const std::string part = text->text.substr(at, end - at);
        ok = !part.empty() && part.size() <= 4 && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (ok) dims.push_back(std::stoi(part));
        ok = ok && dims.back() >= 1 && dims.back() <= 1024 && dims.size() <= 3;
        at = end + 1;
      }
    }
    if (!ok)
      return error_value(diag::kHwValue, entry.value,
                         "'system.torus' takes the torus's dimensions as \"X\", \"XxY\" or \"XxYxZ\" (e.g. \"4x4x4\"), each 1 to 1024");
    torus_entry_ = &entry;
    if (auto source = source_of(entry)) {
      device_.torus = std::move(dims);
      device_.torus_source = std::move(*source);
    }
  }

  void kind(const ast::Entry& entry) {
    has_kind_ = true;  // even a wrong kind: one error for it, not a second "no kind"
    const auto* word = boost::get<ast::Word>(&entry.value.get());
    const auto kind = word ? ir::device_kind_from_name(word->text) : std::nullopt;
    if (!kind) return error_value(diag::kHwValue, entry.value, "expected a device kind: one of " + std::string(kKinds));
    device_.kind = *kind;
  }

  // A count with no unit: a whole number from 1 to a million (units, threads), with its source.
  std::optional<ir::Figure> whole_count(const ast::Entry& entry, const std::string& expected) {
    const auto* quantity = boost::get<ast::Quantity>(&entry.value.get());
    const double v = quantity ? quantity->number : 0.0;
    if (!quantity || quantity->unit || !(v >= 1.0) || v != std::floor(v) || v > 1e6) {
      error_value(diag::kHwValue, entry.value, expected);
      return std::nullopt;
    }
    auto source = source_of(entry);
    if (!source) return std::nullopt;
    return ir::Figure{v, std::move(*source)};
  }

  // A figure: a number with a unit of the key's dimension, finite and positive, with a source.
  std::optional<ir::Figure> figure(const ast::Entry& entry, Dimension dimension) {
    const auto* quantity = boost::get<ast::Quantity>(&entry.value.get());
    if (!quantity) {
      error_value(diag::kHwValue, entry.value, "'" + entry.key.text + "' takes " + expected(dimension));
      return std::nullopt;
    }
    const auto value = checked(*quantity, entry.key.text, dimension);
    if (!value) return std::nullopt;
    auto source = source_of(entry);
    if (!source) return std::nullopt;
    return ir::Figure{*value, std::move(*source)};
  }

  static std::string expected(Dimension dimension) {
    return std::string(dimension_noun(dimension)) + " such as '" + std::string(dimension_example(dimension)) + "'";
  }

  // The entry's source: its own `source "..."`, else the sticky one; an error when there is none.
  std::optional<std::string> source_of(const ast::Entry& entry) {
    std::string source = entry.source ? entry.source->text : sticky_;
    if (source.empty()) {
      error(diag::kHwNoSource, entry.key, "figure '" + entry.key.text +
                                              "' has no source; add 'source \"...\"' after it or a 'source = \"...\"' line above it");
      return std::nullopt;
    }
    return source;
  }

  // A number with a unit of `dimension` (none for a fraction), finite and positive once the unit is
  // applied, and at most 1 for a fraction; in SI base units. Errors name `key`.
  std::optional<double> checked(const ast::Quantity& quantity, const std::string& key, Dimension dimension) {
    const std::string expected = Checker::expected(dimension);
    double scale = 1.0;
    if (!quantity.unit) {
      if (dimension != Dimension::Fraction) {
        error_at(diag::kHwUnit, end_of(quantity), "missing unit: '" + key + "' takes " + expected);
        return std::nullopt;
      }
    } else {
      const std::string& spelled = quantity.unit->text;
      const auto unit = parse_unit(spelled);
      if (!unit) {
        const std::string hint = suggest_unit(spelled);
        error(diag::kHwUnit, *quantity.unit, "unknown unit '" + spelled + "'" +
                                                  (hint.empty() ? "; '" + key + "' takes " + expected
                                                                : "; did you mean '" + hint + "'?"));
        return std::nullopt;
      }
      if (unit->dimension != dimension) {
        error(diag::kHwUnit, *quantity.unit, "'" + spelled + "' is " + std::string(dimension_noun(unit->dimension)) + ", but '" +
                                                  key + "' takes " + expected);
        return std::nullopt;
      }
      scale = unit->scale;
    }
    const double value = quantity.number * scale;
    if (!std::isfinite(quantity.number)) {
      error(diag::kHwRange, quantity, "'" + key + "' must be a finite number (a double holds up to 1.8e308), found " +
                                          format_number(quantity.number));
      return std::nullopt;
    }
    if (!std::isfinite(value)) {
      // Finite as written, not once its unit is applied (1e300 PiB): checked after the scaling.
      error(diag::kHwRange, quantity, "'" + key + "' overflows a double once its unit is applied (" + format_number(quantity.number) +
                                           " x " + format_number(scale) + " is beyond a double); expected a plausible figure");
      return std::nullopt;
    }
    if (value <= 0.0) {
      error(diag::kHwRange, quantity, "'" + key + "' must be positive, found " + format_number(quantity.number));
      return std::nullopt;
    }
    if (dimension == Dimension::Fraction && value > 1.0) {
      error(diag::kHwRange, quantity, "'" + key + "' is a fraction of peak in (0, 1], found " +
                                           format_number(quantity.number) + (quantity.unit ? " %" : "") +
                                           "; write '0.7' or '70 %'");
      return std::nullopt;
    }
    return value;
  }

  void assign(std::optional<ir::Figure>& slot, const ast::Entry& entry, Dimension dimension,
              const ast::Entry* arch_entry = nullptr) {
    if (arch_entry && !arch_entry_) arch_entry_ = arch_entry;
    if (auto f = figure(entry, dimension)) slot = std::move(f);
  }

  // The microarchitecture (ir::Microarchitecture), collected until finish() checks it is complete.
  ir::Microarchitecture& arch() {
    if (!device_.arch) device_.arch.emplace();
    return *device_.arch;
  }

  // `arch.*`: false when the key is no arch key (dispatch then reports it as unknown).
  bool arch_key(const ast::Entry& entry, const std::vector<std::string>& parts) {
    const std::size_t n = parts.size();
    if (!arch_entry_) arch_entry_ = &entry;
    const std::string& what = n >= 2 ? parts[1] : std::string();
    if (n == 2 && what == "family") {
      const auto* word = boost::get<ast::Word>(&entry.value.get());
      if (!word) {
        error_value(diag::kHwValue, entry.value, "'arch.family' takes a word naming the architecture, e.g. ampere");
      } else {
        arch().family = word->text;
      }
      return true;
    }
    if (n == 2 && what == "units") {
      if (auto f = whole_count(entry, "'arch.units' takes a whole number of units (SMs, cores, TensorCores), e.g. 108"))
        arch().units = *f, has_units_ = true;
      return true;
    }
    if (n == 2 && what == "threads") {
      if (auto f = whole_count(entry, "'arch.threads' takes a whole number of threads resident per unit, e.g. 2048"))
        arch().threads = *f;
      return true;
    }
    if (n == 2 && what == "clock") {
      if (auto f = figure(entry, Dimension::Frequency)) arch().clock = *f, has_clock_ = true;
      return true;
    }
    if (n == 2 && what == "matrix_clock") return assign(arch().matrix_clock, entry, Dimension::Frequency), true;
    if (n == 2 && what == "shared_memory") return assign(arch().shared_memory, entry, Dimension::Size), true;
    if (n == 2 && what == "registers") return assign(arch().registers, entry, Dimension::Size), true;
    if (n == 3 && (what == "vector" || what == "matrix")) {
      const auto precision = ir::precision_from_name(parts[2]);
      if (!precision) {
        error(diag::kHwUnknownKey, entry.key, "unknown precision '" + parts[2] + "' in '" + entry.key.text + "'; expected one of " +
                                                  ir::precision_names());
        return true;
      }
      if (auto f = figure(entry, Dimension::PerClock))
        (what == "vector" ? arch().vector_per_clock : arch().matrix_per_clock)[*precision] = *f;
      return true;
    }
    return false;
  }

  void link(const ast::Entry& entry, const std::vector<std::string>& parts) {
    PendingLink& pending = links_[parts[1]];
    if (!pending.first) pending.first = &entry;
    if (parts[2] == "bandwidth") {
      if (auto f = figure(entry, Dimension::Bandwidth)) pending.bandwidth = std::move(f);
      else pending.bandwidth = ir::Figure{};  // already reported; don't also report "no bandwidth"
    } else if (parts[2] == "efficiency") {
      if (auto f = figure(entry, Dimension::Fraction)) pending.efficiency = std::move(f);
    } else if (auto f = figure(entry, Dimension::Time)) {
      pending.latency = std::move(f);
    }
  }

  void ppp(const ast::Entry& entry, const std::vector<std::string>& parts) {
    const auto op_class = ir::op_class_from_name(parts[1]);
    if (!op_class)
      return error(diag::kHwUnknownKey, entry.key, "unknown op class '" + parts[1] + "' in '" + entry.key.text + "'; expected one of " +
                                                       ir::op_class_names());
    std::optional<ir::Pass> pass;
    if (parts.size() == 4) {
      pass = ir::pass_from_name(parts[2]);
      if (!pass)
        return error(diag::kHwUnknownKey, entry.key, "unknown pass '" + parts[2] + "' in '" + entry.key.text +
                                                         "'; expected forward, backward or forward_train");
    }
    const std::string& what = parts.back();
    if (what != "compute" && what != "memory")
      return error(diag::kHwUnknownKey, entry.key, "'" + entry.key.text + "' must end in '.compute' or '.memory'");
    const bool compute = what == "compute";
    if (const auto* curve = boost::get<ast::Curve>(&entry.value.get())) {
      if (auto c = size_curve(entry, *curve, compute ? Dimension::Work : Dimension::Size)) {
        ir::Efficiency& e = device_.ppp[{*op_class, pass}];
        (compute ? e.compute_curve : e.memory_curve) = std::move(c);
      }
    } else if (auto f = figure(entry, Dimension::Fraction)) {
      ir::Efficiency& e = device_.ppp[{*op_class, pass}];
      (compute ? e.compute : e.memory) = std::move(f);
    }
  }

  // `[1 GFLOP: 0.6, 16 GFLOP: 0.9]`: sizes of `dimension` (FLOPs for compute, bytes for memory),
  // strictly increasing, each with a fraction in (0, 1].
  std::optional<ir::SizeCurve> size_curve(const ast::Entry& entry, const ast::Curve& curve, Dimension dimension) {
    ir::SizeCurve out;
    bool ok = true;
    for (const ast::CurvePoint& point : curve.points) {
      const auto size = checked(point.size, "a point's size in " + entry.key.text, dimension);
      const auto fraction = checked(point.fraction, entry.key.text, Dimension::Fraction);
      if (!size || !fraction) {
        ok = false;
        continue;
      }
      if (!out.points.empty() && !(*size > out.points.back().size)) {
        error(diag::kHwRange, point.size, "the sizes of '" + entry.key.text + "' must increase from point to point; " +
                                              format_number(*size) + " follows " + format_number(out.points.back().size));
        ok = false;
        continue;
      }
      out.points.push_back({*size, *fraction});
    }
    auto source = source_of(entry);
    if (!ok || !source) return std::nullopt;
    out.source = std::move(*source);
    return out;
  }

  // system.count and system.node_size: a whole number of devices.
  void count(const ast::Entry& entry, int& slot, const ast::Entry*& where) {
    const auto* quantity = boost::get<ast::Quantity>(&entry.value.get());
    const double n = quantity ? quantity->number : 0.0;
    if (!quantity || quantity->unit || !(n >= 1.0) || n != std::floor(n) || n > 1e6)
      return error_value(diag::kHwValue, entry.value, "'" + entry.key.text + "' takes a whole number of devices, at least 1 (e.g. 8)");
    slot = static_cast<int>(n);
    where = &entry;
  }
  void count(const ast::Entry& entry) { count(entry, device_.count, count_entry_); }

  // system.interconnect and system.node_interconnect: the name of a declared link.
  void interconnect(const ast::Entry& entry, std::string& slot, const ast::Word*& where) {
    const auto* word = boost::get<ast::Word>(&entry.value.get());
    if (!word) return error_value(diag::kHwValue, entry.value, "'" + entry.key.text + "' takes the name of a link, e.g. nvlink");
    slot = word->text;
    where = word;
  }

  // Checks that need the whole file: the kind, links complete, the interconnect declared.
  void finish(const ast::Device& ast) {
    if (!has_kind_)
      error(diag::kHwIncomplete, ast, "the device has no 'kind = ...'; expected one of " + std::string(kKinds));
    std::string declared;
    for (auto& [name, pending] : links_) {
      declared += (declared.empty() ? "" : ", ") + name;
      if (!pending.bandwidth) {
        error(diag::kHwIncomplete, pending.first->key, "link '" + name + "' has no bandwidth; add 'link." + name + ".bandwidth = ...'");
        continue;
      }
      device_.links[name] = ir::Link{*pending.bandwidth, pending.latency, pending.efficiency};
    }
    for (const auto& [word, key] : {std::pair{interconnect_word_, "system.interconnect"},
                                    std::pair{node_interconnect_word_, "system.node_interconnect"}})
      if (word && !links_.count(word->text))
        error(diag::kHwIncomplete, *word, "'" + std::string(key) + "' names link '" + word->text + "', which the device does not declare" +
                                              (declared.empty() ? std::string("; declare 'link.") + word->text + ".bandwidth = ...'"
                                                                : "; declared links: " + declared));
    // A cluster: whole nodes, each joined inside by its own link.
    if (node_size_entry_) {
      if (!node_interconnect_word_)
        error(diag::kHwIncomplete, node_size_entry_->key, "nodes of " + std::to_string(device_.node_size) +
                                                              " devices need 'system.node_interconnect = LINK' to say how a node's devices are joined");
      if (device_.count % device_.node_size != 0)
        error(diag::kHwIncomplete, node_size_entry_->key, "'system.count' (" + std::to_string(device_.count) + ") is not a whole number of nodes of " +
                                                              std::to_string(device_.node_size) + " devices");
    } else if (node_interconnect_word_) {
      error(diag::kHwIncomplete, *node_interconnect_word_, "'system.node_interconnect' needs 'system.node_size = N' (devices per node)");
    }
    if (arch_entry_ && error_count_ == 0 && (!has_units_ || !has_clock_))
      error(diag::kHwIncomplete, arch_entry_->key, "a microarchitecture needs 'arch.units = N' and 'arch.clock = F' (the clock its peaks assume)");
    if (allocator_entry_ && error_count_ == 0 && !device_.first_touch != !device_.mmap_threshold)
      error(diag::kHwIncomplete, allocator_entry_->key, "the fresh-memory term needs both 'allocator.first_touch' and 'allocator.mmap_threshold'");
    if (torus_entry_ && !device_.torus.empty()) {
      long long product = 1;
      for (const int d : device_.torus) product *= d;
      if (product != device_.count)
        error(diag::kHwIncomplete, torus_entry_->key, "a torus of " + std::to_string(product) + " devices, but 'system.count' is " +
                                                          std::to_string(device_.count) + "; expected the dimensions' product to be the count");
      else if (node_size_entry_)
        error(diag::kHwIncomplete, torus_entry_->key, "'system.torus' describes one fabric; a system of nodes ('system.node_size') has two");
    }
    if (device_.count > 1 && !interconnect_word_)
      error(diag::kHwIncomplete, count_entry_->key, "a system of " + std::to_string(device_.count) +
                                                        " devices needs 'system.interconnect = LINK' to say how they are joined");
  }

  const parser::position_cache& positions_;
  const Locator& locator_;
  ir::Device device_;
  ir::Runtime runtime_;
  std::vector<Found> found_;
  std::size_t error_count_ = 0;
  bool whole_file_ = false;   // in finish(): every error is kept, to be sorted
  std::string sticky_;
  std::map<std::string, const ast::Entry*> seen_;
  std::map<std::string, PendingLink> links_;
  bool has_kind_ = false;
  const ast::Entry* count_entry_ = nullptr;
  const ast::Entry* torus_entry_ = nullptr;
  const ast::Word* interconnect_word_ = nullptr;
  const ast::Entry* node_size_entry_ = nullptr;
  const ast::Word* node_interconnect_word_ = nullptr;
  const ast::Entry* allocator_entry_ = nullptr;   // the last allocator.* entry, for "needs both"
  const ast::Entry* arch_entry_ = nullptr;        // the first arch.* (or l2.bandwidth) entry
  bool has_units_ = false, has_clock_ = false;
};

}  // namespace

ir::Device check_device(const ast::Device& device, const parser::position_cache& positions, const Locator& locator,
                        std::string id) {
  return Checker(positions, locator).run(device, std::move(id));
}

ir::Runtime check_runtime(const ast::Device& runtime, const parser::position_cache& positions, const Locator& locator,
                          std::string id, const ir::Runtime* base) {
  return Checker(positions, locator).run_runtime(runtime, std::move(id), base);
}

}  // namespace ridge::lang::hw
