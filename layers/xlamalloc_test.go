package layers

// The benchmarks (make bench-mixers, scripts/bench-mixers.sh) measure XLA with the allocator the project's
// commands set (oryx/xlamalloc); ORYX_XLA_MALLOC=default keeps glibc's defaults.
import _ "github.com/oryx-go/oryx/oryx/xlamalloc"
