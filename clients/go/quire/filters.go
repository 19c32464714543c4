package quire

import (
	"reflect"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/quire/quire/clients/go/quirev1"
)

// Filter builders: each returns a *quirev1.MetadataFilter for SearchKnowledgeRequest.Filter,
// ListDocumentsRequest.Filter and DeleteDocumentsRequest.Filter.
//
//	filter := quire.All(
//	    quire.Eq("customer", "acme"),
//	    quire.AnyOf("tier", "gold", "silver"),
//	    quire.Range("version", quire.Gte(2), quire.Lt(3)),
//	    quire.Not(quire.Exists("archived")),
//	)
//
// A field is a metadata key or a dotted path into nested objects ("customer.tier"). The
// builders do not check bounds (at most 64 conditions, 8 levels, 1–100 values for AnyOf, a
// range with at least one bound...): the server answers ErrInvalidRequest naming the part of
// the filter at fault, e.g. "filter.all.filters[2].field.in".

// Scalar is a value a field can be compared with: a string, a number or a boolean. The type
// parameter keeps objects, lists and nil out at compile time, and AnyOf's values of one type.
type Scalar interface {
	~string | ~bool | Number
}

// Number is any Go integer or floating-point type; metadata numbers are doubles, so integers
// beyond 2^53 lose precision.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64
}

// scalarValue converts a Scalar to a google.protobuf.Value by its kind, so named types
// (type Tier string, type Cents int64) convert like their underlying type.
func scalarValue[V Scalar](v V) *structpb.Value {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return structpb.NewStringValue(rv.String())
	case reflect.Bool:
		return structpb.NewBoolValue(rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return structpb.NewNumberValue(float64(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return structpb.NewNumberValue(float64(rv.Uint()))
	default: // the float kinds, the only ones left in Scalar
		return structpb.NewNumberValue(rv.Float())
	}
}

func field(name string, condition func(*quirev1.FieldCondition)) *quirev1.MetadataFilter {
	c := &quirev1.FieldCondition{Field: name}
	condition(c)
	return &quirev1.MetadataFilter{Filter: &quirev1.MetadataFilter_Field{Field: c}}
}

// Eq matches documents whose field equals v, or is a list that contains v.
func Eq[V Scalar](fieldName string, v V) *quirev1.MetadataFilter {
	return field(fieldName, func(c *quirev1.FieldCondition) {
		c.Condition = &quirev1.FieldCondition_Equals{Equals: scalarValue(v)}
	})
}

// AnyOf matches documents whose field equals one of values (or is a list containing one):
// the `in` condition, 1–100 values of one type.
func AnyOf[V Scalar](fieldName string, values ...V) *quirev1.MetadataFilter {
	list := &structpb.ListValue{Values: make([]*structpb.Value, 0, len(values))}
	for _, v := range values {
		list.Values = append(list.Values, scalarValue(v))
	}
	return field(fieldName, func(c *quirev1.FieldCondition) {
		c.Condition = &quirev1.FieldCondition_In{In: list}
	})
}

// NumberBound is one bound of Range: Gt, Gte, Lt or Lte.
type NumberBound func(*quirev1.NumberRange)

// Gt bounds a Range from below, exclusive.
func Gt[N Number](v N) NumberBound {
	return func(r *quirev1.NumberRange) { f := float64(v); r.Gt = &f }
}

// Gte bounds a Range from below, inclusive.
func Gte[N Number](v N) NumberBound {
	return func(r *quirev1.NumberRange) { f := float64(v); r.Gte = &f }
}

// Lt bounds a Range from above, exclusive.
func Lt[N Number](v N) NumberBound {
	return func(r *quirev1.NumberRange) { f := float64(v); r.Lt = &f }
}

// Lte bounds a Range from above, inclusive.
func Lte[N Number](v N) NumberBound {
	return func(r *quirev1.NumberRange) { f := float64(v); r.Lte = &f }
}

// Range matches documents whose field is a number (or a list holding a number) within the
// bounds: quire.Range("price", quire.Gte(10), quire.Lt(20)). At least one bound; not Gt with
// Gte, nor Lt with Lte.
func Range(fieldName string, bounds ...NumberBound) *quirev1.MetadataFilter {
	r := &quirev1.NumberRange{}
	for _, b := range bounds {
		b(r)
	}
	return field(fieldName, func(c *quirev1.FieldCondition) {
		c.Condition = &quirev1.FieldCondition_NumberRange{NumberRange: r}
	})
}

// TimeBound is one bound of TimeRange: After, AtOrAfter, Before or AtOrBefore.
type TimeBound func(*quirev1.TimeRange)

// After bounds a TimeRange from below, exclusive (gt).
func After(t time.Time) TimeBound {
	return func(r *quirev1.TimeRange) { r.Gt = timestamppb.New(t) }
}

// AtOrAfter bounds a TimeRange from below, inclusive (gte).
func AtOrAfter(t time.Time) TimeBound {
	return func(r *quirev1.TimeRange) { r.Gte = timestamppb.New(t) }
}

// Before bounds a TimeRange from above, exclusive (lt).
func Before(t time.Time) TimeBound {
	return func(r *quirev1.TimeRange) { r.Lt = timestamppb.New(t) }
}

// AtOrBefore bounds a TimeRange from above, inclusive (lte).
func AtOrBefore(t time.Time) TimeBound {
	return func(r *quirev1.TimeRange) { r.Lte = timestamppb.New(t) }
}

// TimeRange matches documents whose field is an RFC 3339 timestamp string (or a date,
// meaning its midnight UTC) within the bounds:
// quire.TimeRange("published", quire.AtOrAfter(start), quire.Before(end)).
func TimeRange(fieldName string, bounds ...TimeBound) *quirev1.MetadataFilter {
	r := &quirev1.TimeRange{}
	for _, b := range bounds {
		b(r)
	}
	return field(fieldName, func(c *quirev1.FieldCondition) {
		c.Condition = &quirev1.FieldCondition_TimeRange{TimeRange: r}
	})
}

// Exists matches documents that have the field, with any value (null included).
func Exists(fieldName string) *quirev1.MetadataFilter {
	return field(fieldName, func(c *quirev1.FieldCondition) {
		c.Condition = &quirev1.FieldCondition_Exists{Exists: true}
	})
}

// Missing matches documents that do not have the field (the `exists: false` condition).
func Missing(fieldName string) *quirev1.MetadataFilter {
	return field(fieldName, func(c *quirev1.FieldCondition) {
		c.Condition = &quirev1.FieldCondition_Exists{Exists: false}
	})
}

// All matches documents that every filter matches (and); 1–64 filters.
func All(filters ...*quirev1.MetadataFilter) *quirev1.MetadataFilter {
	return &quirev1.MetadataFilter{Filter: &quirev1.MetadataFilter_All{All: &quirev1.FilterList{Filters: filters}}}
}

// Any matches documents that at least one filter matches (or); 1–64 filters.
func Any(filters ...*quirev1.MetadataFilter) *quirev1.MetadataFilter {
	return &quirev1.MetadataFilter{Filter: &quirev1.MetadataFilter_Any{Any: &quirev1.FilterList{Filters: filters}}}
}

// Not matches documents that f does not match.
func Not(f *quirev1.MetadataFilter) *quirev1.MetadataFilter {
	return &quirev1.MetadataFilter{Filter: &quirev1.MetadataFilter_Not{Not: f}}
}
