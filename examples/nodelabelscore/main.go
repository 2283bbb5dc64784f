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

// Command berth-nodelabelscore is Berth built with one plugin of its own,
// NodeLabelScore: every subcommand of berth (manager, validate, convert,
// explain, version), with profiles that may enable NodeLabelScore.
package main

import (
	"github.com/berth-io/berth/cmd/berth/app"

	"github.com/berth-io/berth/examples/nodelabelscore/nodelabelscore"
)

// options are what this binary adds to Berth.
func options() []app.Option {
	return []app.Option{app.WithPlugin(nodelabelscore.Name, nodelabelscore.New)}
}

func main() {
	app.Main(options()...)
}
