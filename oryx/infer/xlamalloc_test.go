package infer

// The benchmarks (make bench-model, bench-speculative) measure XLA with the allocator the project's commands
// set (oryx/xlamalloc); ORYX_XLA_MALLOC=default keeps glibc's defaults.
import _ "github.com/oryx-go/oryx/oryx/xlamalloc"
