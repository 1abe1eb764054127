// The layers a NetworkBuilder has made, in chunks of a fixed size: a layer never moves once made, and
// no buffer of them is freed for one twice as large. A std::vector grown a layer at a time freed its
// buffers of 512, then 1,024 layers (each over 64 KB) while building Llama-2-70B's 1,444, which left
// glibc handing memory back to the system and faulting it in again for every network parsed in a
// loop: a third of parse + simulate. take() moves them once into a vector of the exact size.
#pragma once

#include "lang/ir/network.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ridge::lang {

class LayerChunks {
 public:
  std::size_t size() const { return size_; }
  const ir::Layer& operator[](std::size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  const ir::Layer& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("no layer " + std::to_string(i));
    return (*this)[i];
  }
  const ir::Layer& back() const { return (*this)[size_ - 1]; }

  void push_back(ir::Layer layer) {
    if (size_ % kChunk == 0) chunks_.emplace_back().reserve(kChunk);
    chunks_.back().push_back(std::move(layer));
    ++size_;
  }

  // Every layer, in order, in one vector; leaves no layers behind.
  std::vector<ir::Layer> take() {
    std::vector<ir::Layer> all;
    all.reserve(size_);
    for (auto& chunk : chunks_)
      for (auto& layer : chunk) all.push_back(std::move(layer));
    chunks_.clear();
    size_ = 0;
    return all;
  }

 private:
  static constexpr std::size_t kChunk = 256;   // 36 KB of layers a chunk
  std::vector<std::vector<ir::Layer>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace ridge::lang
