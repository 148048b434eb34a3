#pragma once
// What the load drivers read of a local daemon from /proc: its CPU time and memory.

#include <string>
#include <vector>

#include <sys/types.h>

namespace agentry::bench {

/// CPU time the process has used, user + system, all threads, in microseconds.
double cpu_us(pid_t pid);

/// A /proc/<pid>/status field in kB (VmHWM: peak resident set; VmRSS: current); 0 if absent.
long status_kb(pid_t pid, const char* field);

/// The p-quantile (0..1) of `values` by nearest rank; 0 when empty.
double percentile(std::vector<double> values, double p);

}  // namespace agentry::bench
