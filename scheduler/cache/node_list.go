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

package cache

import "github.com/berth-io/berth/scheduler/framework"

// nodeEntry is one NodeInfo of the cache, linked into a list ordered from the
// most recently changed entry to the least recently changed one.
type nodeEntry struct {
	name   string
	info   *framework.NodeInfo
	newer  *nodeEntry
	older  *nodeEntry
	linked bool
}

// recencyList orders node entries by their last change; the head is the newest.
// Walking from the head until an entry's generation is not newer than a
// snapshot's gives exactly the entries the snapshot lacks.
type recencyList struct {
	head *nodeEntry
}

// touch moves e to the head of the list, inserting it when it is not linked yet.
func (l *recencyList) touch(e *nodeEntry) {
	if l.head == e {
		return
	}
	if e.linked {
		l.unlink(e)
	}
	e.older = l.head
	e.newer = nil
	if l.head != nil {
		l.head.newer = e
	}
	l.head = e
	e.linked = true
}

// remove takes e out of the list; removing an unlinked entry does nothing.
func (l *recencyList) remove(e *nodeEntry) {
	if !e.linked {
		return
	}
	l.unlink(e)
	e.newer, e.older, e.linked = nil, nil, false
}

func (l *recencyList) unlink(e *nodeEntry) {
	if e.newer != nil {
		e.newer.older = e.older
	} else {
		l.head = e.older
	}
	if e.older != nil {
		e.older.newer = e.newer
	}
}
