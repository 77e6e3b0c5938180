// Host test runner for the firmware core (doctest from Debian's doctest-dev).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
