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
	"sync"
	"testing"
)

func TestSharedPluginStateCreatesOncePerKey(t *testing.T) {
	s := NewSharedPluginState()
	var made sync.Map
	var wg sync.WaitGroup
	results := make([]any, 8)
	for i := range results {
		wg.Go(func() {
			results[i] = s.LoadOrStore("A", func() any {
				v := new(int)
				made.Store(v, true)
				return v
			})
		})
	}
	wg.Wait()
	for _, r := range results[1:] {
		if r != results[0] {
			t.Fatal("LoadOrStore returned different values for one key")
		}
	}
	n := 0
	made.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("newValue ran %d times, want once", n)
	}
	if b := s.LoadOrStore("B", func() any { return "b" }); b != "b" {
		t.Errorf("key B = %v, want its own value", b)
	}
}

func TestSharedPluginStateLoad(t *testing.T) {
	s := NewSharedPluginState()
	if v, ok := s.Load("A"); ok || v != nil {
		t.Errorf("Load of a missing key = %v, %v; want nil, false", v, ok)
	}
	s.LoadOrStore("A", func() any { return "a" })
	if v, ok := s.Load("A"); !ok || v != "a" {
		t.Errorf("Load = %v, %v; want a, true", v, ok)
	}
}
