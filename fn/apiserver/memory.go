package apiserver

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Memory remembers, from one run to the next, what the custom resource strategy's Validate said of an object:
// at fleet scale Validate (the OpenAPI schema and above all the CEL rules) is most of a render's time, and a
// repository that is rendered again (every Argo CD refresh of a new commit, every local kustomize build) holds
// mostly the objects it held before.
//
// A verdict is remembered under the hash of the object exactly as Validate saw it (after the decoder's steps,
// the defaults and PrepareForCreate, as canonical JSON), the channel, kind and version, and the identity of the
// running executable (its Go build ID): the CRDs are embedded in the binary and Validate depends on nothing else,
// so a different binary starts from nothing. Everything before Validate (unknown fields, pruning, defaults) runs
// on every object in every run; only Validate's answer is taken from memory. A memory that cannot be read is
// treated as empty, one that cannot be written is left as it was: neither changes what the render says.
type Memory struct {
	path  string
	known map[memoryKey][]Problem // read from the file; not changed after Remember

	mu   sync.Mutex
	used map[memoryKey][]Problem // this run's verdicts: found in known, or new
	hits atomic.Int64
	new  atomic.Int64
}

type memoryKey [sha256.Size]byte

// memoryFormat is part of every key: a change to what is remembered, or to how a key is made, is a new format.
const memoryFormat = "gateway2tyk verdicts 1"

// memoryCap bounds the verdicts kept in the file: this run's, then as many of earlier runs' (other applications
// rendered with the same binary and directory) as fit.
const memoryCap = 200_000

// memory is the Memory in use, if any: the judge is a process-wide question, as the parsed CRDs are.
var memory atomic.Pointer[Memory]

// memoryFile is the file's content.
type memoryFile struct {
	Entries []memoryEntry
}

type memoryEntry struct {
	Key      memoryKey
	Problems []Problem
}

// Remember makes the judge remember Validate's verdicts in dir (created if missing), for the running executable,
// and returns the Memory, whose Save writes this run's verdicts. The verdicts of earlier runs of the same
// executable are read now.
func Remember(dir string) (*Memory, error) {
	id, err := executableIdentity()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(memoryFormat + "\x00" + id))
	m := &Memory{
		path:  filepath.Join(dir, "verdicts-"+hex.EncodeToString(sum[:8])+".gob"),
		known: map[memoryKey][]Problem{},
		used:  map[memoryKey][]Problem{},
	}
	if data, err := os.ReadFile(m.path); err == nil {
		var f memoryFile
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&f) == nil {
			for _, e := range f.Entries {
				m.known[e.Key] = e.Problems
			}
		}
	}
	memory.Store(m)
	return m, nil
}

// Forget stops the judge from remembering (for tests).
func Forget() { memory.Store(nil) }

// Counts are the verdicts taken from memory and those judged anew in this run.
func (m *Memory) Counts() (hits, judged int64) { return m.hits.Load(), m.new.Load() }

// Save writes this run's verdicts, with as many earlier ones as the cap allows, when this run judged anything
// anew. The file is replaced whole (written aside, then renamed), so a reader never sees half of it and two
// renders at once leave one of their files.
func (m *Memory) Save() error {
	if m == nil || m.new.Load() == 0 {
		return nil
	}
	m.mu.Lock()
	f := memoryFile{Entries: make([]memoryEntry, 0, min(memoryCap, len(m.used)+len(m.known)))}
	for k, p := range m.used {
		f.Entries = append(f.Entries, memoryEntry{k, p})
	}
	for k, p := range m.known {
		if len(f.Entries) >= memoryCap {
			break
		}
		if _, ok := m.used[k]; !ok {
			f.Entries = append(f.Entries, memoryEntry{k, p})
		}
	}
	m.mu.Unlock()
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&f); err != nil {
		return err
	}
	dir := filepath.Dir(m.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".verdicts-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), m.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return werr
	}
	removeOtherBinaries(dir, m.path)
	return nil
}

// removeOtherBinaries deletes the files of other executables' verdicts: after an upgrade they are never read
// again.
func removeOtherBinaries(dir, keep string) {
	names, _ := filepath.Glob(filepath.Join(dir, "verdicts-*.gob"))
	for _, n := range names {
		if n != keep {
			os.Remove(n)
		}
	}
}

// remembered returns Validate's verdict on the object of key, judging it with validate when it is not known (a
// judgement that fails is not remembered).
func (m *Memory) remembered(key memoryKey, validate func() ([]Problem, error)) ([]Problem, error) {
	if p, ok := m.known[key]; ok {
		m.hits.Add(1)
		m.mu.Lock()
		m.used[key] = p
		m.mu.Unlock()
		return p, nil
	}
	p, err := validate()
	if err != nil {
		return nil, err
	}
	m.new.Add(1)
	m.mu.Lock()
	m.used[key] = p
	m.mu.Unlock()
	return p, nil
}

// keyOf names an object as Validate sees it: its canonical JSON (encoding/json sorts map keys) with what picks
// the validator.
func keyOf(channel Channel, kind, version string, canonical []byte) memoryKey {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", memoryFormat, channel, kind, version)
	h.Write(canonical)
	var k memoryKey
	h.Sum(k[:0])
	return k
}

// executableIdentity names the running binary: its Go build ID (which changes with any change to the code or
// the embedded CRDs) on ELF systems; elsewhere, or when the note cannot be read, its path, size and modification
// time.
func executableIdentity() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if f, err := elf.Open(exe); err == nil {
		defer f.Close()
		if s := f.Section(".note.go.buildid"); s != nil {
			if data, err := s.Data(); err == nil && len(data) > 16 {
				return "go-build-id:" + strings.TrimRight(string(data[16:]), "\x00"), nil
			}
		}
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("file:%s:%d:%d", exe, st.Size(), st.ModTime().UnixNano()), nil
}
