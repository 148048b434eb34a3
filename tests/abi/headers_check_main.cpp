// Runs the two header compile checks, so the suite shows up (and fails) in ctest.
#include <cstdio>

extern "C" int agentry_abi_c11_check(void);
int agentry_abi_cpp20_check();

int main() {
  const int failures = agentry_abi_c11_check() + agentry_abi_cpp20_check();
  if (failures != 0) std::fprintf(stderr, "%d ABI header check(s) failed\n", failures);
  return failures == 0 ? 0 : 1;
}
