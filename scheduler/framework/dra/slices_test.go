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

package dra

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestDeviceTaintRulesServed(t *testing.T) {
	resourceV1 := func(names ...string) *metav1.APIResourceList {
		l := &metav1.APIResourceList{GroupVersion: "resource.k8s.io/v1"}
		for _, n := range names {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: n})
		}
		return l
	}
	tests := []struct {
		name      string
		resources []*metav1.APIResourceList
		fail      error
		want      bool
		wantErr   bool
	}{
		{name: "v1.37: served", resources: []*metav1.APIResourceList{resourceV1("resourceslices", "devicetaintrules")}, want: true},
		{name: "resource.k8s.io/v1 without DeviceTaintRules", resources: []*metav1.APIResourceList{resourceV1("resourceslices")}},
		{name: "no resource.k8s.io/v1 at all"},
		{name: "discovery fails", fail: errors.New("connection refused"), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			client.Resources = tc.resources
			if tc.fail != nil {
				client.PrependReactor("get", "resource", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.fail })
			}
			got, err := DeviceTaintRulesServed(client.Discovery())
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want an error: %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("served = %v, want %v", got, tc.want)
			}
		})
	}
}
