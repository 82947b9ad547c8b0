package jsonpick

// For the external tests (validator_heavy_test.go), which can use
// corpustest: corpustest imports this package, so the package's own tests
// cannot.
var (
	CheckValidator = checkValidator
	ValidatorSeeds = validatorSeeds
)

// CutOnceMax is cutOnceMax.
const CutOnceMax = cutOnceMax
