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

package eventobj

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestPair(t *testing.T) {
	a := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	b := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "b"}}
	tests := []struct {
		name        string
		oldObj, cur any
		wantOld     *v1.Pod
		wantCur     *v1.Pod
		wantErr     bool
	}{
		{name: "update", oldObj: a, cur: b, wantOld: a, wantCur: b},
		{name: "add", cur: b, wantCur: b},
		{name: "delete", oldObj: a, wantOld: a},
		{name: "tombstone", oldObj: cache.DeletedFinalStateUnknown{Key: "x", Obj: a}, wantOld: a},
		{name: "wrong new type", oldObj: a, cur: &v1.Node{}, wantErr: true},
		{name: "wrong old type", oldObj: &v1.Node{}, cur: b, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotOld, gotCur, err := Pair[*v1.Pod](tt.oldObj, tt.cur)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if gotOld != tt.wantOld || gotCur != tt.wantCur {
				t.Errorf("got (%v, %v), want (%v, %v)", gotOld, gotCur, tt.wantOld, tt.wantCur)
			}
		})
	}
}
