package pjrt

/*
#include <stdlib.h>
#include "pjrt_c_api.h"
#include "gen_api_calls.h"
#include "gen_new_struct.h"

static void deleteSerializedExecutable(PJRT_Executable_Serialize_Args *args) {
	if (args->serialized_executable_deleter != NULL) {
		args->serialized_executable_deleter(args->serialized_executable);
	}
}
*/
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/pkg/errors"
)

// Serialize returns the plugin's serialization of the compiled executable (PJRT_Executable_Serialize), to be
// loaded again with Client.DeserializeAndLoad by the same plugin version on the same kind of machine. The format
// is the plugin's own and not guaranteed to be stable across versions.
func (e *LoadedExecutable) Serialize() ([]byte, error) {
	if e == nil || e.executable == nil || !e.executable.wrapper.IsValid() {
		return nil, errors.New("LoadedExecutable.Serialize: the executable is nil or destroyed")
	}
	defer runtime.KeepAlive(e)
	args := C.new_PJRT_Executable_Serialize_Args()
	defer cFree(args)
	args.executable = e.executable.wrapper.c
	if err := toError(e.plugin, C.call_PJRT_Executable_Serialize(e.plugin.api, args)); err != nil {
		return nil, errors.WithMessage(err, "LoadedExecutable.Serialize")
	}
	defer C.deleteSerializedExecutable(args)
	return C.GoBytes(unsafe.Pointer(args.serialized_bytes), C.int(args.serialized_bytes_size)), nil
}

// DeserializeAndLoad loads an executable serialized by LoadedExecutable.Serialize
// (PJRT_Executable_DeserializeAndLoad), with the compile options it was compiled with.
//
// The returned executable does not know how it was configured at compilation (portability, device
// assignment): CompileConfig.Done, which uses it for its persistent cache, sets those.
func (c *Client) DeserializeAndLoad(serialized []byte) (*LoadedExecutable, error) {
	if c == nil || c.client == nil || c.plugin == nil {
		return nil, errors.New("Client.DeserializeAndLoad: the client is nil or destroyed")
	}
	if len(serialized) == 0 {
		return nil, errors.New("Client.DeserializeAndLoad: empty serialized executable")
	}
	args := C.new_PJRT_Executable_DeserializeAndLoad_Args()
	defer cFree(args)
	args.client = c.client.c
	data := C.CBytes(serialized)
	defer C.free(data)
	args.serialized_executable = (*C.char)(data)
	args.serialized_executable_size = C.size_t(len(serialized))
	if err := toError(c.plugin, C.call_PJRT_Executable_DeserializeAndLoad(c.plugin.api, args)); err != nil {
		return nil, errors.WithMessage(err, "Client.DeserializeAndLoad")
	}
	return newLoadedExecutable(c.plugin, c, args.loaded_executable)
}
