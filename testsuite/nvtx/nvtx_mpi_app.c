/*
 * nvtx_mpi_app.c - NVTX payloads in an MPI job (2 ranks) for
 * check_nvtx_file.py's `mpi` mode: rank r pushes r + 1 payload ranges of a
 * static schema {int32 who = r, double v = r + 0.5 k}; every rank also
 * registers a dynamic schema with a string and marks with it (parallel
 * HDF5 cannot write variable-length rows: that table is left out, and the
 * job must still end and write its file).
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

typedef struct { int32_t who; double v; } pr_t;

int main(int argc, char **argv)
{
	nvtxPayloadSchemaEntry_t e[] = {
		{ .type = NVTX_PAYLOAD_ENTRY_TYPE_INT32, .name = "who", .offset = offsetof(pr_t, who) },
		{ .type = NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, .name = "v", .offset = offsetof(pr_t, v) } };
	nvtxPayloadSchemaEntry_t d[] = {
		{ .flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, .type = NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, .name = "s" } };
	nvtxPayloadSchemaAttr_t a = { .fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES
		| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME, .name = "pr",
		.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, .entries = e, .numEntries = 2 };
	uint64_t id, did;
	int r;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	id = nvtxPayloadSchemaRegister(NULL, &a);
	a.name = "text";
	a.type = NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC;
	a.entries = d;
	a.numEntries = 1;
	did = nvtxPayloadSchemaRegister(NULL, &a);
	for (int k = 0; k <= r; k++) {
		pr_t p = { r, r + 0.5 * k };
		nvtxPayloadData_t pd = { id, sizeof p, &p }, pt = { did, 3, "hi" };

		nvtxRangePushPayload(NULL, &pd, 1);
		nvtxMarkPayload(NULL, &pt, 1);
		nvtxRangePop();
	}
	MPI_Finalize();
	return 0;
}
