// Tally runs on Linux. The log's durability rests on Linux system calls (`fdatasync`,
// `O_DIRECTORY` opens to sync a directory after a rename) and every file that
// makes them imports Glibc. Darwin would need its own answers (`F_FULLFSYNC` for a
// durable write, above all), and an untested port would promise durability it does not
// keep, so the package states no Apple platform and another system stops here with a
// clear message instead of failing in a system call.
#if !os(Linux)
#error("Tally builds and runs on Linux only (see docs/operations.md, \"Building\").")
#endif
