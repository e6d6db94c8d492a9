// A Jupyter notebook in VS Code's notebook editor (the built-in ipynb support, no Jupyter
// extension): the server checks its Python cells as one program and reports by cell.
import * as assert from "node:assert";
import * as vscode from "vscode";
import { activeApi, ours, waitFor, waitForAsync } from "./helpers";

function notebookSample(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, "a workspace folder is open");
  return vscode.Uri.joinPath(folder.uri, "notebooks", "rnn_hidden_buggy.ipynb");
}

suite("autograd-lint in a notebook", () => {
  let notebook: vscode.NotebookDocument;
  let training: vscode.NotebookCell;

  suiteSetup(async () => {
    notebook = await vscode.workspace.openNotebookDocument(notebookSample());
    await vscode.window.showNotebookDocument(notebook);
    await activeApi();
    const found = notebook.getCells().find((cell) => cell.document.getText().includes("loss.backward()"));
    assert.ok(found, "the notebook has a training cell");
    training = found;
    // Commands such as executeHoverProvider need the cell's text model in the workbench,
    // which exists once the cell is shown: select and reveal it.
    const range = new vscode.NotebookRange(training.index, training.index + 1);
    const editor = await vscode.window.showNotebookDocument(notebook, { selections: [range] });
    editor.revealRange(range, vscode.NotebookEditorRevealType.InCenter);
  });

  test("AG001 is on the training cell's backward(), at a cell-relative position", async () => {
    const [diagnostic] = await waitFor(
      "the AG001 diagnostic in the training cell",
      () => {
        const found = ours(training.document.uri, "AG001");
        return found.length > 0 ? found : undefined;
      },
      60_000,
    );
    const lines = training.document.getText().split("\n");
    const backward = lines.findIndex((line) => line.includes("loss.backward()"));
    assert.strictEqual(diagnostic.range.start.line, backward);
    assert.match(diagnostic.message, /`hidden` carries the graph built at cell 3 line 9/);
    // Evidence in the model's cell points into that cell's document.
    const model = notebook.cellAt(2).document.uri.toString();
    const related = (diagnostic.relatedInformation ?? []).map((info) => info.location.uri.toString());
    assert.ok(related.includes(model), `relatedInformation reaches cell 3: ${related.join(", ")}`);
    for (const cell of notebook.getCells()) {
      if (cell !== training) {
        assert.deepStrictEqual(ours(cell.document.uri), [], `no finding in cell ${cell.index + 1}`);
      }
    }
  });

  const backwardAt = () => {
    const lines = training.document.getText().split("\n");
    const line = lines.findIndex((text) => text.includes("loss.backward()"));
    assert.ok(line >= 0, "the training cell has its backward()");
    return new vscode.Position(line, lines[line].indexOf("backward") + 2);
  };

  test("the hover tells the story in the cell", async () => {
    const at = backwardAt();
    let hovers: vscode.Hover[] = [];
    await waitForAsync("a hover on the cell's backward()", async () => {
      try {
        hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
          "vscode.executeHoverProvider",
          training.document.uri,
          at,
        );
      } catch {
        return false; // the cell's text model is not there yet ("Illegal argument")
      }
      return hovers.length > 0;
    });
    const text = hovers
      .flatMap((hover) => hover.contents.map((part) => (typeof part === "string" ? part : part.value)))
      .join("\n");
    assert.match(text, /hidden = hidden\.detach\(\)/);
    assert.match(text, /cell 3 line 9/, "a step in another cell names it");
  });

  test("the quick fix detaches `hidden` in the cell", async () => {
    const at = backwardAt();
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      "vscode.executeCodeActionProvider",
      training.document.uri,
      new vscode.Range(at, at),
    );
    const fix = actions.find((action) => action.isPreferred);
    assert.ok(fix?.edit, `a preferred fix with an edit: ${actions.map((a) => a.title).join(", ")}`);
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.match(training.document.getText(), /\n {4}hidden = hidden\.detach\(\)\n/);
    await waitFor("the diagnostic to go", () => (ours(training.document.uri).length === 0 ? true : undefined), 60_000);
  });
});
