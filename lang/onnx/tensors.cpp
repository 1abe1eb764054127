// Reading initializers and Constant payloads, and folding small constants.
#include "lang/onnx/tensors.hpp"

#include "lang/ir/ops.hpp"

#include <cstring>

namespace ridge::lang::onnx_import {

std::int64_t element_count_checked(const ir::Shape& dims, const std::string& what) {
  if (dims.size() > kMaxRank)
    throw OnnxError(what + " has " + std::to_string(dims.size()) + " axes; at most " + std::to_string(kMaxRank), diag::kOnnxLimit);
  std::int64_t n = 1;
  for (const auto d : dims) {
    if (d < 0 || d > ir::kMaxDimension)
      throw OnnxError(what + " has dimension " + std::to_string(d) + "; dimensions lie in 0 .. " + std::to_string(ir::kMaxDimension),
                      diag::kOnnxLimit);
    if (d != 0 && n > ir::kMaxElementsPerSample / d)
      throw OnnxError(what + " has shape " + ir::to_string(dims) + ", more than " + std::to_string(ir::kMaxElementsPerSample) +
                          " elements: absurdly large",
                      diag::kOnnxLimit);
    n *= d;
  }
  return n;
}

namespace {

template <typename T>
std::vector<double> from_raw(const std::string& raw, std::int64_t n) {
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
    out[static_cast<std::size_t>(i)] = static_cast<double>(v);
  }
  return out;
}

std::size_t width(int type) {
  switch (type) {
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: return 4;
    case onnx::TensorProto::INT64: case onnx::TensorProto::DOUBLE: return 8;
    case onnx::TensorProto::BOOL: case onnx::TensorProto::INT8: case onnx::TensorProto::UINT8: return 1;
    default: return 0;
  }
}

}  // namespace

Value read_tensor(const onnx::TensorProto& t, const std::string& what) {
  Value v;
  v.dims.assign(t.dims().begin(), t.dims().end());
  const std::int64_t n = element_count_checked(v.dims, what);
  const int type = t.data_type();
  v.integral = type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 || type == onnx::TensorProto::BOOL ||
               type == onnx::TensorProto::INT8 || type == onnx::TensorProto::UINT8;
  // Values are read where the import may fold them (shape arithmetic, scalars); a weight is its shape.
  if (t.data_location() == onnx::TensorProto::EXTERNAL || n > kMaxReadElements) return v;
  const std::size_t w = width(type);
  std::optional<std::vector<double>> data;
  if (!t.raw_data().empty() && w > 0) {
    if (t.raw_data().size() != static_cast<std::size_t>(n) * w)
      throw OnnxError(what + " holds " + std::to_string(t.raw_data().size()) + " bytes for shape " + ir::to_string(v.dims),
                      diag::kOnnxTensor);
    switch (type) {
      case onnx::TensorProto::FLOAT: data = from_raw<float>(t.raw_data(), n); break;
      case onnx::TensorProto::DOUBLE: data = from_raw<double>(t.raw_data(), n); break;
      case onnx::TensorProto::INT32: data = from_raw<std::int32_t>(t.raw_data(), n); break;
      case onnx::TensorProto::INT64: data = from_raw<std::int64_t>(t.raw_data(), n); break;
      case onnx::TensorProto::INT8: data = from_raw<std::int8_t>(t.raw_data(), n); break;
      default: data = from_raw<std::uint8_t>(t.raw_data(), n); break;
    }
  } else if (t.int64_data_size() > 0) {
    data = std::vector<double>(t.int64_data().begin(), t.int64_data().end());
  } else if (t.int32_data_size() > 0) {
    data = std::vector<double>(t.int32_data().begin(), t.int32_data().end());
  } else if (t.float_data_size() > 0) {
    data = std::vector<double>(t.float_data().begin(), t.float_data().end());
  } else if (t.double_data_size() > 0) {
    data = std::vector<double>(t.double_data().begin(), t.double_data().end());
  }
  if (data && static_cast<std::int64_t>(data->size()) != n)
    throw OnnxError(what + " holds " + std::to_string(data->size()) + " values for shape " + ir::to_string(v.dims),
                    diag::kOnnxTensor);
  if (!data && n == 0) data = std::vector<double>{};
  v.data = std::move(data);
  return v;
}

std::int64_t as_int(double v, const std::string& what) {
  if (is_batch(v))
    throw OnnxError(what + " depends on the batch size, which Ridge keeps out of the graph", diag::kOnnxUnsupportedNode);
  // A float that is no number cast to an integer is undefined in ONNX (Cast): never a size.
  if (std::isnan(v) || std::isinf(v))
    throw OnnxError(what + " is " + (std::isnan(v) ? std::string("nan") : v > 0 ? "inf" : "-inf") + ", not an integer",
                    diag::kOnnxUnsupportedNode);
  // int64's range as doubles is [-2^63, 2^63): INT64_MAX reads back as 2^63 ("to the end" in a Slice),
  // and any value at or past it is taken as that, never cast (the cast would be undefined; issue #41's
  // fuzz finding cast 9.22e18, inside an older bound of 9.3e18).
  constexpr double kTwo63 = 9223372036854775808.0;
  if (v >= kTwo63) return std::numeric_limits<std::int64_t>::max();
  if (v < -kTwo63) return std::numeric_limits<std::int64_t>::min();
  if (!(v == std::floor(v))) throw OnnxError(what + " is " + std::to_string(v) + ", not an integer", diag::kOnnxUnsupportedNode);
  return static_cast<std::int64_t>(v);
}

std::vector<std::int64_t> as_ints(const Value& v, const std::string& what) {
  if (v.is_layer() || !v.data) throw OnnxError(what + " is not a constant known at import", diag::kOnnxUnsupportedNode);
  std::vector<std::int64_t> out;
  for (const double d : *v.data) out.push_back(as_int(d, what));
  return out;
}

std::optional<ir::Shape> broadcast(const ir::Shape& a, const ir::Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  ir::Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Value fold_binary(const Value& a, const Value& b, double (*f)(double, double), const std::string& what) {
  const auto shape = broadcast(a.dims, b.dims);
  if (!shape)
    throw OnnxError(what + ": shapes " + ir::to_string(a.dims) + " and " + ir::to_string(b.dims) + " do not broadcast",
                    diag::kOnnxShape);
  const std::int64_t n = element_count_checked(*shape, what);
  if (n > kMaxFoldedElements)
    throw OnnxError(what + " folds to more than " + std::to_string(kMaxFoldedElements) + " elements", diag::kOnnxLimit);
  std::vector<double> out(static_cast<std::size_t>(n));
  const std::size_t rank = shape->size();
  auto index = [&](const Value& v, std::int64_t flat) {
    std::int64_t idx = 0, stride = 1;
    for (std::size_t k = rank; k-- > 0;) {
      const std::int64_t coord = flat % (*shape)[k];
      flat /= (*shape)[k];
      const std::size_t off = rank - v.dims.size();
      if (k >= off) {
        const std::int64_t d = v.dims[k - off];
        idx += (d == 1 ? 0 : coord) * stride;
        stride *= d;
      }
    }
    return static_cast<std::size_t>(idx);
  };
  for (std::int64_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = f((*a.data)[index(a, i)], (*b.data)[index(b, i)]);
  return Value::constant(*shape, std::move(out), a.integral && b.integral);
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
std::int64_t attr_int(const onnx::NodeProto& n, const std::string& name, std::int64_t fallback) {
  const auto* a = attribute(n, name);
  return a ? a->i() : fallback;
}
double attr_float(const onnx::NodeProto& n, const std::string& name, double fallback) {
  const auto* a = attribute(n, name);
  if (a && !std::isfinite(a->f()))
    throw OnnxError("attribute '" + name + "' is not a finite number", diag::kOnnxUnsupportedNode);
  return a ? static_cast<double>(a->f()) : fallback;
}
std::string attr_string(const onnx::NodeProto& n, const std::string& name, const std::string& fallback) {
  const auto* a = attribute(n, name);
  return a ? a->s() : fallback;
}
std::optional<std::vector<std::int64_t>> attr_ints(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = attribute(n, name);
  if (!a) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

}  // namespace ridge::lang::onnx_import
