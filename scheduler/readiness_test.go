package scheduler

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

func TestHasSynced(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := New(ctx, fake.NewClientset())
	if err != nil {
		t.Fatal(err)
	}
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
