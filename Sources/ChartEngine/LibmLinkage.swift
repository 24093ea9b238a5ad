// The standard library's floating-point rounding (`rounded(_:)`, `squareRoot()`) lowers to libm
// calls on Linux. Importing the platform C library here makes every client of ChartEngine
// (tests, the benchmark, the server) autolink libm without extra linker flags.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
