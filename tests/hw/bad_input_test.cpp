#include "parse.hpp"
#include <catch2/catch.hpp>
