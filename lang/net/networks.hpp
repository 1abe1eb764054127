// Which network a `.net` file describes: its own definition, or a variant of another network
// (`network llama2_7b = llama(layers: 32, ...)`), followed to the definition whose parameters and body
// it runs. Internal to lang/net.
#pragma once

#include "lang/net/sources.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::lang::net {

struct ResolvedNetwork {
  const ast::Identifier* name = nullptr;                 // what the network is called: the first file's name
  const ast::Definition* body = nullptr;                 // the definition it runs
  std::vector<const ast::NetworkVariant*> variants;      // from the first file's to the one nearest `body`

  // The expression that gives parameter `param` its default: the nearest variant's argument, else
  // the definition's default (null when neither gives one).
  const ast::Expr* default_of(const ast::Param& param) const;
};

// Mistakes that stand on their own (a file with two networks, two networks of one name, none in the
// first file) go to `report`, all of them, and then nothing is resolved; a variant that cannot be
// followed (a base that is no network, variants that vary each other, an argument that names no
// parameter) throws lang::Error.
using Report = std::function<void(const boost::spirit::x3::position_tagged* at, std::string_view id, std::string message)>;
std::optional<ResolvedNetwork> resolve_network(const Sources& sources, const Report& report);

// The parameters of the network `sources` describes, in declaration order. Throws lang::Error.
std::vector<std::string> network_parameters(const Sources& sources);

}  // namespace ridge::lang::net
