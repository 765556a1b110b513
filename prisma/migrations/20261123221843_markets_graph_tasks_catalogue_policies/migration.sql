-- CreateTable
CREATE TABLE "markets_graph_node" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_graph_node_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets_graph_edge" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "from_node_id" TEXT NOT NULL,
    "to_node_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "label" TEXT,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_graph_edge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets_skill" (
    "key" TEXT NOT NULL,
    "provider_key" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "service_types" TEXT[],
    "operations" TEXT[],
    "execution_mode" TEXT NOT NULL,
    "integration_status" TEXT NOT NULL,

    CONSTRAINT "markets_skill_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "markets_service" (
    "id" TEXT NOT NULL,
    "skill_key" TEXT NOT NULL,
    "provider_key" TEXT NOT NULL,
    "service_type" TEXT NOT NULL,
    "execution_mode" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "record" JSONB NOT NULL,

    CONSTRAINT "markets_service_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets_search" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "quotes" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_search_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets_task" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "skill_key" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "candidates" JSONB NOT NULL,
    "route_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets_route" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "service_id" TEXT NOT NULL,
    "skill_key" TEXT NOT NULL,
    "provider_key" TEXT NOT NULL,
    "execution_mode" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_route_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets_run" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "route_id" TEXT NOT NULL,
    "provider_key" TEXT NOT NULL,
    "execution_mode" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "http_status" INTEGER,
    "error_reason" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets_outcome" (
    "id" TEXT NOT NULL,
    "machine_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "result" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_outcome_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets_policy" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "machine_ids" TEXT[],
    "rules" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "markets_policy_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "markets_graph_node_machine_id_created_at_idx" ON "markets_graph_node"("machine_id", "created_at");

-- CreateIndex
CREATE INDEX "markets_graph_edge_machine_id_created_at_idx" ON "markets_graph_edge"("machine_id", "created_at");

-- CreateIndex
CREATE INDEX "markets_graph_edge_from_node_id_idx" ON "markets_graph_edge"("from_node_id");

-- CreateIndex
CREATE INDEX "markets_graph_edge_to_node_id_idx" ON "markets_graph_edge"("to_node_id");

-- CreateIndex
CREATE INDEX "markets_service_skill_key_idx" ON "markets_service"("skill_key");

-- CreateIndex
CREATE INDEX "markets_search_machine_id_created_at_idx" ON "markets_search"("machine_id", "created_at");

-- CreateIndex
CREATE INDEX "markets_task_machine_id_created_at_idx" ON "markets_task"("machine_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "markets_route_task_id_key" ON "markets_route"("task_id");

-- CreateIndex
CREATE INDEX "markets_route_machine_id_created_at_idx" ON "markets_route"("machine_id", "created_at");

-- CreateIndex
CREATE INDEX "markets_run_machine_id_started_at_idx" ON "markets_run"("machine_id", "started_at");

-- CreateIndex
CREATE INDEX "markets_run_task_id_idx" ON "markets_run"("task_id");

-- CreateIndex
CREATE UNIQUE INDEX "markets_outcome_run_id_key" ON "markets_outcome"("run_id");

-- CreateIndex
CREATE INDEX "markets_outcome_machine_id_created_at_idx" ON "markets_outcome"("machine_id", "created_at");

-- CreateIndex
CREATE INDEX "markets_policy_created_at_idx" ON "markets_policy"("created_at");

-- AddForeignKey
ALTER TABLE "markets_graph_edge" ADD CONSTRAINT "markets_graph_edge_from_node_id_fkey" FOREIGN KEY ("from_node_id") REFERENCES "markets_graph_node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "markets_graph_edge" ADD CONSTRAINT "markets_graph_edge_to_node_id_fkey" FOREIGN KEY ("to_node_id") REFERENCES "markets_graph_node"("id") ON DELETE CASCADE ON UPDATE CASCADE;
