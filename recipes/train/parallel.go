package train

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/distributed"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// Data-parallel training with GoMLX's distributed execution (docs/gomlx.md §4, the AutoSharding path): one mesh
// axis "data" over the devices; the batch inputs (tokens, targets, modes) are sharded along their batch
// axis, the scalars (loss scale, lr, micro-step count, ok) replicated, and so are the variables (the
// context's default spec under AutoSharding): weights, Adam moments and gradient accumulators. XLA's
// sharding propagation (Shardy) then partitions the forward and backward by batch and all-reduces the
// gradients, since the loss is the mean over the whole micro-batch. Outputs are replicated; shard 0 is read.
//
// Status: written against GoMLX v0.26's distributed API following its own trainer and tests, but not yet
// run on several devices (no multi-GPU machine in this project's sessions; the pure-Go backend has one
// device and no collectives).

type dataParallel struct {
	batch, replicated *distributed.ShardingSpec
	nBatch            map[*context.Exec]int // leading batch inputs of each graph (tokens, targets[, mask][, modes])
}

// newDataParallel shards the graphs accumulate, apply and eval (in that order; accumulate may be nil).
func newDataParallel(be backends.Backend, n int, multi bool, execs ...*context.Exec) (*dataParallel, error) {
	if be.NumDevices() < n {
		return nil, fmt.Errorf("data-parallel over %d devices: the backend %s has %d", n, be.Name(), be.NumDevices())
	}
	mesh, err := distributed.NewDeviceMesh([]int{n}, []string{"data"})
	if err != nil {
		return nil, err
	}
	batch, err := distributed.NewShardingSpec(mesh, distributed.AxisSpec{"data"})
	if err != nil {
		return nil, err
	}
	dp := &dataParallel{batch: batch, replicated: distributed.NewReplicatedShardingSpec(mesh), nBatch: map[*context.Exec]int{}}
	for i, e := range execs {
		if e == nil {
			continue
		}
		nb := 2
		if i < 2 { // accumulate and apply also take the loss mask
			nb++
		}
		if multi {
			nb++
		}
		dp.nBatch[e] = nb
		specs := make([]*distributed.ShardingSpec, nb)
		for j := range specs {
			specs[j] = batch
		}
		specs = append(specs, dp.replicated) // the remaining inputs: scalars
		e.AutoSharding(mesh).WithInputShardingSpecs(specs...).WithOutputShardingSpecs(dp.replicated)
		if err := e.SetDefaultShardingSpec(dp.replicated); err != nil {
			return nil, err
		}
	}
	return dp, nil
}

// exec shards the inputs (the leading batch tensors along their batch axis, the rest replicated), runs e and
// returns shard 0 of each (replicated) output.
func (dp *dataParallel) exec(e *context.Exec, args ...any) ([]*tensors.Tensor, error) {
	nBatch := dp.nBatch[e]
	in := make([]any, len(args))
	for i, a := range args {
		t, ok := a.(*tensors.Tensor)
		if !ok {
			return nil, fmt.Errorf("data-parallel input %d is %T, want a tensor", i, a)
		}
		spec := dp.replicated
		if i < nBatch {
			spec = dp.batch
		}
		d, err := distributed.ShardTensor(spec, t)
		if err != nil {
			return nil, fmt.Errorf("sharding input %d: %w", i, err)
		}
		in[i] = d
	}
	outs, err := e.DistributedExec(in...)
	if err != nil {
		return nil, err
	}
	res := make([]*tensors.Tensor, len(outs))
	for i, o := range outs {
		if res[i], err = o.Shards()[0].LocalClone(); err != nil {
			return nil, err
		}
	}
	return res, nil
}
