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

import "testing"

type testArgs struct {
	Mode  string `json:"mode"`
	Count int    `json:"count"`
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    testArgs
		wantErr bool
	}{
		{name: "empty args keep defaults", args: "", want: testArgs{Mode: "default", Count: 1}},
		{name: "null keeps defaults", args: "null", want: testArgs{Mode: "default", Count: 1}},
		{name: "fields override defaults", args: `{"mode":"fast"}`, want: testArgs{Mode: "fast", Count: 1}},
		{name: "unknown field is an error", args: `{"mdoe":"fast"}`, wantErr: true},
		{name: "wrong type is an error", args: `{"count":"many"}`, wantErr: true},
		{name: "trailing data is an error", args: `{"count":2} {}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testArgs{Mode: "default", Count: 1}
			err := DecodeArgs("Test", []byte(tc.args), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("DecodeArgs(%q) error = %v, wantErr %v", tc.args, err, tc.wantErr)
			}
			if !tc.wantErr && got != tc.want {
				t.Errorf("DecodeArgs(%q) = %+v, want %+v", tc.args, got, tc.want)
			}
		})
	}
}
