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

package rebalance

import "github.com/berth-io/berth/scheduler/args"

// specError returns an args.SpecError about the field at, not about a strategy.
func specError(section string, err error, at ...any) *args.SpecError {
	return args.NewSpecError(args.SpecInvalid, section, err, at...)
}

// strategyError returns an args.SpecError about the field name of strategy i.
func strategyError(kind args.SpecErrorKind, i int, err error, name string) *args.SpecError {
	se := args.NewSpecError(kind, "", err, "strategies", i, name)
	se.Strategy = i
	return se
}
