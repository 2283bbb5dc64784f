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

import "context"

// PluginFactory builds a plugin from its arguments. args is the plugin's
// pluginConfig entry as JSON, or nil when the profile gives none; the factory
// loads it with args.Load, which decodes, defaults and validates it.
type PluginFactory func(ctx context.Context, args []byte, h Handle) (Plugin, error)
