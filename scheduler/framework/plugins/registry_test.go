package plugins

import (
	"context"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/scheduler/framework"
)

// clientHandle is a Handle that only provides a client set.
type clientHandle struct {
	framework.Handle
	client kubernetes.Interface
}

func (h clientHandle) ClientSet() kubernetes.Interface { return h.client }

func TestNewInTreeRegistry(t *testing.T) {
	r := NewInTreeRegistry()
	h := clientHandle{client: fake.NewClientset()}
	for name, factory := range r {
		t.Run(name, func(t *testing.T) {
			pl, err := factory(context.Background(), nil, h)
			if err != nil {
				t.Fatalf("factory with default args: %v", err)
			}
			if pl.Name() != name {
				t.Errorf("plugin registered as %q is named %q", name, pl.Name())
			}
			if _, err := factory(context.Background(), []byte(`{"noSuchField":1}`), h); err == nil {
				t.Error("unknown args field: want error")
			}
		})
	}
	r["x"] = nil
	if _, ok := NewInTreeRegistry()["x"]; ok {
		t.Error("registries share state")
	}
}
