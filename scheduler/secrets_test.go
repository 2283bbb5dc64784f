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
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

func TestSecretsOfExtenders(t *testing.T) {
	withRef := func(ns string) *v1alpha1.SchedulingProfileSpec {
		return &v1alpha1.SchedulingProfileSpec{Extenders: []v1alpha1.Extender{{URLPrefix: "https://x:8443", FilterVerb: "filter", EnableHTTPS: true,
			TLSConfig: &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: ns, Name: "x-tls"}}}}}
	}
	tests := []struct {
		name string
		// namespace is the scheduler's WithSecretsNamespace.
		namespace string
		spec      *v1alpha1.SchedulingProfileSpec
		wantErr   string
		// wantFound says whether the Secret berth-system/x-tls can be read.
		wantFound bool
	}{
		{name: "a Secret in Berth's namespace", namespace: "berth-system", spec: withRef("berth-system"), wantFound: true},
		{name: "a Secret elsewhere", namespace: "berth-system", spec: withRef("default"),
			wantErr: "extenders[0].tlsConfig.secretRef: Secret default/x-tls is outside namespace berth-system, the only one Berth reads Secrets in", wantFound: true},
		{name: "no namespace given: any", spec: withRef("default"), wantFound: true},
		{name: "no extenders", namespace: "berth-system", spec: &v1alpha1.SchedulingProfileSpec{}, wantFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withoutProfile(), withOptions(WithSecretsNamespace(tt.namespace)))
			ctx, s := h.ctx, h.s
			_, err := s.CompileProfile(ctx, "p", tt.spec)
			if (err != nil) != (tt.wantErr != "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("CompileProfile error %v, want %q", err, tt.wantErr)
			}
			secret := &v1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "berth-system", Name: "x-tls", ResourceVersion: "7"},
				Data: map[string][]byte{"tls.crt": []byte("crt")}}
			informer := s.informerFactory.Core().V1().Secrets().Informer()
			if err := informer.GetStore().Add(secret); err != nil {
				t.Fatal(err)
			}
			data, version, ok := s.secrets.Secret("berth-system", "x-tls")
			if ok != tt.wantFound || ok && (version != "7" || string(data["tls.crt"]) != "crt") {
				t.Errorf("Secret = %q, %q, %v; want found %v", data, version, ok, tt.wantFound)
			}
			if _, _, ok := s.secrets.Secret("other", "x-tls"); ok {
				t.Error("a Secret that does not exist was found")
			}
		})
	}
}
