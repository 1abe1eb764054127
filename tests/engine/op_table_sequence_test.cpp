// (being written) hand-worked cost rows for the sequence ops: see tests/engine/op_table.hpp.
#include "tests/engine/op_table.hpp"
