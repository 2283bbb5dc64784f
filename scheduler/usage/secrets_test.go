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

package usage

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestSecretGetterFromClient(t *testing.T) {
	c := fake.NewClientBuilder().WithObjects(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "prom"},
		Data:       map[string][]byte{"token": []byte("s3cret")},
	}).Build()
	get := SecretGetterFromClient(c)
	tests := []struct {
		name     string
		ref      SecretKeyRef
		want     string
		wantErr  string
		notFound bool
	}{
		{name: "key", ref: SecretKeyRef{Namespace: "monitoring", Name: "prom", Key: "token"}, want: "s3cret"},
		{
			name:    "missing key",
			ref:     SecretKeyRef{Namespace: "monitoring", Name: "prom", Key: "ca.crt"},
			wantErr: `secret monitoring/prom has no key "ca.crt"`,
		},
		{
			name:     "missing Secret",
			ref:      SecretKeyRef{Namespace: "monitoring", Name: "gone", Key: "token"},
			wantErr:  `getting Secret monitoring/gone: secrets "gone" not found`,
			notFound: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := get(context.Background(), tt.ref)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("get(%v) error = %v, want %q", tt.ref, err, tt.wantErr)
				}
				if apierrors.IsNotFound(err) != tt.notFound {
					t.Errorf("IsNotFound(%v) = %v, want %v", err, !tt.notFound, tt.notFound)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("get(%v) = %q, %v, want %q", tt.ref, got, err, tt.want)
			}
		})
	}
}
