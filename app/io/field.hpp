#pragma once
// A named, non-owning view of one cell field for the writers: nx * ny values, row-major with x
// fastest (index j * nx + i, j = 0 the southern row), in float or double.

#include <string>
#include <utility>

namespace shwa::io {

enum class ScalarType { float32, float64 };

struct FieldRef {
  std::string name;
  ScalarType type;
  const void* data;

  FieldRef(std::string field_name, const double* values)
      : name(std::move(field_name)), type(ScalarType::float64), data(values) {}
  FieldRef(std::string field_name, const float* values)
      : name(std::move(field_name)), type(ScalarType::float32), data(values) {}

  // The value at flat index k as a double.
  double at(long long k) const {
    return type == ScalarType::float64 ? static_cast<const double*>(data)[k]
                                       : static_cast<const float*>(data)[k];
  }
};

inline int size_of(ScalarType t) { return t == ScalarType::float64 ? 8 : 4; }

}  // namespace shwa::io
