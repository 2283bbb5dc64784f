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
