/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// PluginFactory builds a plugin from its arguments. args is the plugin's
// pluginConfig entry as JSON, or nil when the profile gives none; the factory
// applies the plugin's defaults and validates the result.
type PluginFactory func(ctx context.Context, args []byte, h Handle) (Plugin, error)

// DecodeArgs decodes a plugin's JSON arguments into out strictly: an unknown
// field is an error, so a typo in a profile is reported rather than ignored.
// Empty args leave out untouched, so callers set defaults before decoding.
func DecodeArgs(pluginName string, args []byte, out any) error {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("decoding args of plugin %s: %w", pluginName, err)
	}
	if dec.More() {
		return fmt.Errorf("decoding args of plugin %s: trailing data after the args object", pluginName)
	}
	return nil
}
