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

package scheduler

import (
	"context"
	"testing"
	"time"
)

func TestHasSynced(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newHarness(t, withoutProfile()).s
	if s.HasSynced() {
		t.Fatal("HasSynced() = true before Start")
	}
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for !s.HasSynced() {
		if time.Now().After(deadline) {
			t.Fatal("HasSynced() stayed false after Start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
}
